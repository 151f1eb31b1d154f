import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { getQueueToken } from '@nestjs/bullmq';
import { Queue } from 'bullmq';

import { JOB, QUEUE } from '@app/queue';

import { createUser, DATE_TIME, expectError, TestUser, useTestApp } from './support/app';
import { insertDomain } from './support/links';
import {
  BROWSER_UA,
  EMPTY_STATS,
  eventually,
  foldStats,
  PREVIEW_UA,
  recordVisit,
} from './support/stats';

const LINK = /^http:\/\/short\.test\/q\/([A-Za-z0-9]{8})$/;

describe('QR codes: API and the public /q/ handler', () => {
  const t = useTestApp();
  let queue: Queue;
  /** The public side: the real server (redirector in front, `/q/` registered by the QR module). */
  const pub = () => t.http();
  let user: TestUser;
  let other: TestUser;

  const add = (u: TestUser, body: Record<string, unknown>) =>
    t.http().post('/api/qr/add').set(u.auth).send(body);
  const codeOf = (link: string) => (LINK.exec(link) as RegExpExecArray)[1];
  const create = async (body: Record<string, unknown>, u: TestUser = user) => {
    const res = await add(u, body);
    expect(res.status).toBe(200);
    return {
      id: res.body.id as number,
      link: res.body.link as string,
      code: codeOf(res.body.link),
    };
  };
  const counts = async () => {
    const [row] = await t.db.query(
      `SELECT (SELECT count(*)::int FROM qr_codes) AS qrs, (SELECT count(*)::int FROM links) AS links,
              (SELECT count(*)::int FROM audit_log) AS audited`,
    );
    return row;
  };
  const jobsFor = async (qrId: number) =>
    (await queue.getJobs(['waiting', 'delayed', 'active', 'completed', 'failed', 'prioritized']))
      .filter((j) => j.name === JOB.renderQr && j.data.qrId === qrId)
      .map((j) => ({ id: j.id, data: j.data }))
      .sort((a, b) => a.data.version - b.data.version);

  beforeAll(async () => {
    queue = t.app.get<Queue>(getQueueToken(QUEUE.qr));
  });
  beforeEach(async () => {
    user = await createUser(t);
    other = await createUser(t);
  });

  describe('POST /api/qr/add', () => {
    it('answers {error, id, link} at once, stores both rows and queues one render job', async () => {
      const res = await add(user, { type: 'link', data: 'https://example.com/menu', name: 'Menu' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        error: 0,
        id: expect.any(Number),
        link: expect.stringMatching(LINK),
      });
      const code = codeOf(res.body.link);

      const [qr] = await t.db.query(`SELECT * FROM qr_codes WHERE id = $1`, [res.body.id]);
      expect(qr).toMatchObject({
        user_id: user.id,
        name: 'Menu',
        type: 'link',
        data: 'https://example.com/menu',
        background: 'rgb(255,255,255)',
        foreground: 'rgb(0,0,0)',
        logo: null,
        status: 'pending',
        error: null,
        render_version: 1,
      });
      const [link] = await t.db.query(`SELECT * FROM links WHERE id = $1`, [qr.link_id]);
      expect(link).toMatchObject({
        user_id: user.id,
        kind: 'qr',
        alias: code,
        url: 'https://example.com/menu',
        title: 'Menu',
      });

      // the job carries what it renders, so the worker need not read the row first
      expect(await jobsFor(res.body.id)).toEqual([
        {
          id: `qr-${res.body.id}-v1`,
          data: {
            qrId: res.body.id,
            version: 1,
            look: {
              code,
              background: qr.background,
              foreground: qr.foreground,
              logo: qr.logo,
            },
          },
        },
      ]);
    });

    it('normalises colours and keeps a valid logo form', async () => {
      await mkdir(join(process.env.STORAGE_DIR as string, 'assets'), { recursive: true });
      await writeFile(join(process.env.STORAGE_DIR as string, 'assets', 'brand.png'), 'x');
      const { id } = await create({
        type: 'text',
        data: 'hi',
        background: 'rgb( 10, 20 ,30 )',
        foreground: 'rgb(250,250,250)',
        logo: 'brand.png',
      });
      const [qr] = await t.db.query(
        `SELECT background, foreground, logo, name FROM qr_codes WHERE id = $1`,
        [id],
      );
      expect(qr).toEqual({
        background: 'rgb(10,20,30)',
        foreground: 'rgb(250,250,250)',
        logo: 'brand.png',
        name: '',
      });
      const url = await create({
        type: 'text',
        data: 'hi',
        logo: 'https://cdn.example.com/logo.png?v=2',
      });
      const [row] = await t.db.query(`SELECT logo FROM qr_codes WHERE id = $1`, [url.id]);
      expect(row.logo).toBe('https://cdn.example.com/logo.png?v=2');
    });

    it.each([
      [
        { data: 'x' },
        /^type: required \(must be one of text, vcard, link, email, phone, sms, wifi\)$/,
      ],
      [{ type: 'url', data: 'x' }, /^type: must be one of/],
      [{ type: 5, data: 'x' }, /^type: must be one of/],
      [{ type: 'text' }, /^data: required$/],
      [{ type: 'text', data: null }, /^data: required$/],
      [{ type: 'text', data: 'x', color: 'red' }, /^color: unknown field$/],
      [
        { type: 'text', data: 'x', name: 'n'.repeat(256) },
        /^name: must be shorter than or equal to 255 characters$/,
      ],
      [
        { type: 'text', data: 'x', name: 'a\u0000b' },
        /^name: must not contain control characters$/,
      ],
      [{ type: 'text', data: 'x', name: 7 }, /^name: /],
      [{ type: 'text', data: 'x', name: null }, /^name: .*must be a string/],
      [{ type: 'text', data: 'x', background: null }, /^background: .*must be a string/],
      [{ type: 'text', data: 'x', logo: null }, /^logo: .*must be a string/],
      [
        { type: 'text', data: 'x', background: 'rgb(256,0,0)' },
        /^background: must be rgb\(R,G,B\) with R, G and B from 0 to 255$/,
      ],
      [{ type: 'text', data: 'x', background: '#ffffff' }, /^background: must be rgb/],
      [{ type: 'text', data: 'x', foreground: 'rgb(0,0)' }, /^foreground: must be rgb/],
      [{ type: 'text', data: 'x', foreground: 1 }, /^foreground: /],
      [
        { type: 'text', data: 'x', background: 'rgb(0,0,0)' },
        /^foreground: too little contrast with the background \(1\.00:1/,
      ],
      [
        { type: 'text', data: 'x', foreground: 'rgb(240,240,240)' },
        /^foreground: too little contrast/,
      ],
      [{ type: 'text', data: 'x', logo: '../secret.png' }, /^logo: file name must not contain/],
      [{ type: 'text', data: 'x', logo: '/etc/passwd' }, /^logo: file name must not contain/],
      [
        { type: 'text', data: 'x', logo: 'missing.png' },
        /^logo: no such file in the assets folder$/,
      ],
      [
        { type: 'text', data: 'x', logo: 'logo.gif' },
        /^logo: file must be a \.png, \.jpg or \.jpeg image$/,
      ],
      [
        { type: 'text', data: 'x', logo: 'ftp://example.com/logo.png' },
        /^logo: must be an http\(s\) URL/,
      ],
      [
        { type: 'text', data: 'x', logo: 'http://127.0.0.1/logo.png' },
        /^logo: URL must not point to a private, loopback or link-local address$/,
      ],
      [
        { type: 'text', data: 'x', logo: 'http://[::1]/logo.png' },
        /^logo: URL must not point to a private/,
      ],
      // IPv4-compatible (::/96) and IPv4-mapped literals, whatever they embed
      [
        { type: 'text', data: 'x', logo: 'http://[::127.0.0.1]/logo.png' },
        /^logo: URL must not point to a private/,
      ],
      [
        { type: 'text', data: 'x', logo: 'http://[::a9fe:a9fe]/latest/meta-data' },
        /^logo: URL must not point to a private/,
      ],
      [
        { type: 'text', data: 'x', logo: 'http://[::ffff:808:808]/logo.png' },
        /^logo: URL must not point to a private/,
      ],
      [
        { type: 'text', data: 'x', logo: 'http://169.254.169.254/latest/meta-data' },
        /^logo: URL must not point to a private/,
      ],
      [
        { type: 'text', data: 'x', logo: 'http://10.0.0.8/l.png' },
        /^logo: URL must not point to a private/,
      ],
      [
        { type: 'text', data: 'x', logo: 'https://u:p@example.com/l.png' },
        /^logo: URL must not carry credentials$/,
      ],
      [{ type: 'text', data: 'x', logo: 12 }, /^logo: /],
    ])('400 for %#: %j, and nothing is written', async (body, message) => {
      const before = await counts();
      const jobs = await queue.count();
      expectError(await add(user, body), 400, message);
      expect(await counts()).toEqual(before);
      expect(await queue.count()).toBe(jobs);
    });

    it.each(
      [
        ['text', ''],
        ['text', 'x'.repeat(4297)],
        ['text', { text: 'hi' }],
        ['link', 'example.com'],
        ['link', 'javascript:alert(1)'],
        ['email', 'not-an-email'],
        ['email', { subject: 'no address' }],
        ['phone', '555 1234'],
        ['phone', 5551234],
        ['sms', '5551234'],
        ['sms', { phone: 'x' }],
        ['sms', { phone: '5551234', body: 'hi' }],
        ['wifi', { pass: 'password1' }],
        ['wifi', { ssid: 'x', encryption: 'WPA3' }],
        ['wifi', { ssid: 'x', hidden: 'yes' }],
        ['vcard', {}],
        ['vcard', { fname: 'A', nick: 'B' }],
        ['vcard', 'BEGIN:VCARD'],
      ].map(([type, data]) => [type, JSON.stringify(data).slice(0, 60), data]),
    )('400 naming the field for %s data %s', async (type, _title, data) => {
      const before = await counts();
      const message = expectError(await add(user, { type, data }), 400, /^data(\.\w+)?: /);
      expect(message.length).toBeGreaterThan(6);
      expect(await counts()).toEqual(before);
    });

    it('names the nested field', async () => {
      expectError(
        await add(user, { type: 'wifi', data: { pass: 'password1' } }),
        400,
        /^data\.ssid: required$/,
      );
      expectError(
        await add(user, { type: 'link', data: 'ftp://x' }),
        400,
        /^data: must be an http\(s\) URL$/,
      );
      expectError(
        await add(user, { type: 'sms', data: { phone: '123', text: 'x' } }),
        400,
        /^data\.text: unknown field$/,
      );
      expectError(
        await add(user, { type: 'text', data: 'a\u0000b' }),
        400,
        /^data: must not contain control characters$/,
      );
    });

    it('401 without a key', async () => {
      expectError(await t.http().post('/api/qr/add').send({ type: 'text', data: 'x' }), 401);
    });

    it('503 and nothing left behind when the render job cannot be queued', async () => {
      const before = await counts();
      const spy = jest.spyOn(queue, 'add').mockRejectedValueOnce(new Error('redis down'));
      try {
        expectError(
          await add(user, { type: 'text', data: 'x' }),
          503,
          /^Service temporarily unavailable/,
        );
      } finally {
        spy.mockRestore();
      }
      expect(await counts()).toEqual(before);
    });
  });

  describe('GET /api/qr/:id', () => {
    it('answers {error, details, data} field by field', async () => {
      const { id, link } = await create({
        type: 'wifi',
        data: { ssid: 'Cafe', password: 'letmein99' },
        name: 'Guest Wi-Fi',
      });
      const res = await t.http().get(`/api/qr/${id}`).set(user.auth);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        error: 0,
        details: {
          id,
          link,
          scans: 0,
          name: 'Guest Wi-Fi',
          date: expect.stringMatching(DATE_TIME),
          type: 'wifi',
          data: { ssid: 'Cafe', pass: 'letmein99', encryption: 'WPA', hidden: false },
          background: 'rgb(255,255,255)',
          foreground: 'rgb(0,0,0)',
          logo: null,
          image: `${link}.png`,
          status: 'pending',
          reason: null,
        },
        data: EMPTY_STATS,
      });
    });

    it('shows why a rendering failed', async () => {
      const { id } = await create({ type: 'text', data: 'x' });
      await t.db.query(
        `UPDATE qr_codes SET status = 'failed', error = 'logo: not a PNG or JPEG image' WHERE id = $1`,
        [id],
      );
      const res = await t.http().get(`/api/qr/${id}`).set(user.auth);
      expect(res.body.details).toMatchObject({
        status: 'failed',
        reason: 'logo: not a PNG or JPEG image',
      });
    });

    it("404 for an unknown id and for another user's QR code; 400 for a bad id", async () => {
      const { id } = await create({ type: 'text', data: 'x' });
      const unknown = expectError(await t.http().get('/api/qr/2147483000').set(user.auth), 404);
      const foreign = expectError(await t.http().get(`/api/qr/${id}`).set(other.auth), 404);
      expect(foreign).toBe(unknown);
      expectError(
        await t.http().get('/api/qr/abc').set(user.auth),
        400,
        /^id: must be a positive integer$/,
      );
      expectError(await t.http().get('/api/qr/0').set(user.auth), 400, /^id: /);
    });
  });

  describe('GET /api/qr', () => {
    it("lists the caller's codes newest first with the documented counters and item shape", async () => {
      const a = await create({ type: 'text', data: 'a', name: 'A' });
      const b = await create({ type: 'phone', data: '+15551234' });
      const c = await create({ type: 'link', data: 'https://example.com', name: 'C' });
      await create({ type: 'text', data: 'foreign' }, other);

      const res = await t.http().get('/api/qr').query({ limit: 2 }).set(user.auth);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        error: '0',
        data: {
          result: 3,
          perpage: 2,
          currentpage: 1,
          nextpage: 2,
          maxpage: 2,
          qrs: [
            { id: c.id, link: c.link, scans: 0, name: 'C', date: expect.stringMatching(DATE_TIME) },
            { id: b.id, link: b.link, scans: 0, name: '', date: expect.stringMatching(DATE_TIME) },
          ],
        },
      });
      const page2 = await t.http().get('/api/qr').query({ limit: 2, page: 2 }).set(user.auth);
      expect(page2.body.data).toMatchObject({ result: 3, currentpage: 2, nextpage: 0, maxpage: 2 });
      expect(page2.body.data.qrs.map((q: { id: number }) => q.id)).toEqual([a.id]);
      const past = await t.http().get('/api/qr').query({ page: 9 }).set(user.auth);
      expect(past.body.data).toMatchObject({ result: 3, currentpage: 9, nextpage: 0, qrs: [] });
    });

    it("scans are the short link's clicks", async () => {
      const { id } = await create({ type: 'text', data: 'a' });
      const [{ link_id: linkId }] = await t.db.query(`SELECT link_id FROM qr_codes WHERE id = $1`, [
        id,
      ]);
      await recordVisit(t, { linkId, userId: user.id });
      await recordVisit(t, { linkId, userId: user.id, ip: '1.1.1.1' });
      const res = await t.http().get('/api/qr').set(user.auth);
      expect(res.body.data.qrs).toEqual([expect.objectContaining({ id, scans: 2 })]);
      expect((await t.http().get(`/api/qr/${id}`).set(user.auth)).body.details.scans).toBe(2);
    });

    it('an empty list, and 400 for a bad limit', async () => {
      const res = await t.http().get('/api/qr').set(user.auth);
      expect(res.body).toEqual({
        error: '0',
        data: { result: 0, perpage: 15, currentpage: 1, nextpage: 0, maxpage: 1, qrs: [] },
      });
      expectError(
        await t.http().get('/api/qr').query({ limit: 'x' }).set(user.auth),
        400,
        /^limit: /,
      );
    });
  });

  describe('PUT /api/qr/:id/update', () => {
    it('changes the content at once without a new image; answers {error, message}', async () => {
      const { id, code } = await create({ type: 'link', data: 'https://example.com/old' });
      expect((await pub().get(`/q/${code}`)).headers.location).toBe('https://example.com/old');

      const res = await t
        .http()
        .put(`/api/qr/${id}/update`)
        .set(user.auth)
        .send({ data: 'https://example.com/new', name: 'Renamed' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ error: 0, message: 'QR code has been updated successfully.' });

      const [qr] = await t.db.query(
        `SELECT q.*, l.url, l.title FROM qr_codes q JOIN links l ON l.id = q.link_id WHERE q.id = $1`,
        [id],
      );
      expect(qr).toMatchObject({
        data: 'https://example.com/new',
        name: 'Renamed',
        render_version: 1,
        status: 'pending',
        url: 'https://example.com/new',
        title: 'Renamed',
      });
      expect(await jobsFor(id)).toHaveLength(1);
      expect((await pub().get(`/q/${code}`)).headers.location).toBe('https://example.com/new');
    });

    it('a new look bumps render_version, sets status pending and queues a re-render', async () => {
      const { id } = await create({ type: 'text', data: 'a' });
      await t.db.query(`UPDATE qr_codes SET status = 'ready' WHERE id = $1`, [id]);
      const res = await t
        .http()
        .put(`/api/qr/${id}/update`)
        .set(user.auth)
        .send({ data: 'b', foreground: 'rgb(0,0,120)' });
      expect(res.status).toBe(200);
      const [qr] = await t.db.query(
        `SELECT data, foreground, background, status, render_version FROM qr_codes WHERE id = $1`,
        [id],
      );
      expect(qr).toEqual({
        data: 'b',
        foreground: 'rgb(0,0,120)',
        background: 'rgb(255,255,255)',
        status: 'pending',
        render_version: 2,
      });
      const look = { code: expect.any(String), background: 'rgb(255,255,255)', logo: null };
      expect(await jobsFor(id)).toEqual([
        {
          id: `qr-${id}-v1`,
          data: { qrId: id, version: 1, look: { ...look, foreground: 'rgb(0,0,0)' } },
        },
        {
          id: `qr-${id}-v2`,
          data: { qrId: id, version: 2, look: { ...look, foreground: 'rgb(0,0,120)' } },
        },
      ]);
    });

    it('removes the logo with an empty string; an update after a failed rendering re-renders', async () => {
      const { id } = await create({
        type: 'text',
        data: 'a',
        logo: 'https://cdn.example.com/l.png',
      });
      await t.db.query(
        `UPDATE qr_codes SET status = 'failed', error = 'logo: the URL answered HTTP 404' WHERE id = $1`,
        [id],
      );
      await t
        .http()
        .put(`/api/qr/${id}/update`)
        .set(user.auth)
        .send({ data: 'a', logo: '' })
        .expect(200);
      const [qr] = await t.db.query(
        `SELECT logo, status, error, render_version FROM qr_codes WHERE id = $1`,
        [id],
      );
      expect(qr).toEqual({ logo: null, status: 'pending', error: null, render_version: 2 });
    });

    it("checks data against the code's type; type cannot be changed; nothing changes on a 400", async () => {
      const { id } = await create({ type: 'wifi', data: { ssid: 'Home', pass: 'password1' } });
      const snapshot = async () =>
        (
          await t.db.query(
            `SELECT q.*, l.url FROM qr_codes q JOIN links l ON l.id = q.link_id WHERE q.id = $1`,
            [id],
          )
        )[0];
      const before = await snapshot();
      const put = (body: unknown) =>
        t
          .http()
          .put(`/api/qr/${id}/update`)
          .set(user.auth)
          .send(body as object);
      expectError(await put({ type: 'text', data: 'x' }), 400, /^type: cannot be changed$/);
      expectError(
        await put({ type: 'wifi', data: { ssid: 'x' } }),
        400,
        /^type: cannot be changed$/,
      );
      expectError(await put({}), 400, /^data: required$/);
      expectError(await put({ data: 'just text' }), 400, /^data: must be an object with ssid$/);
      expectError(
        await put({ data: { ssid: 'x', pass: 'short' } }),
        400,
        /^data\.pass: must be 8 to 64 characters for WPA$/,
      );
      expectError(
        await put({ data: { ssid: 'x' }, background: 'rgb(1,2,3,4)' }),
        400,
        /^background: /,
      );
      expectError(await put({ data: { ssid: 'x' }, logo: '../x.png' }), 400, /^logo: /);
      expectError(await put({ data: { ssid: 'x' }, extra: 1 }), 400, /^extra: unknown field$/);
      expect(await snapshot()).toEqual(before);
    });

    it('503 and the previous content back when the re-render cannot be queued', async () => {
      const { id, code } = await create({ type: 'link', data: 'https://example.com/old' });
      await t.db.query(`UPDATE qr_codes SET status = 'ready' WHERE id = $1`, [id]);
      const spy = jest.spyOn(queue, 'add').mockRejectedValueOnce(new Error('redis down'));
      try {
        const res = await t
          .http()
          .put(`/api/qr/${id}/update`)
          .set(user.auth)
          .send({ data: 'https://example.com/new', foreground: 'rgb(0,0,90)' });
        expectError(res, 503);
      } finally {
        spy.mockRestore();
      }
      const [qr] = await t.db.query(
        `SELECT q.data, q.foreground, q.status, q.render_version, l.url FROM qr_codes q JOIN links l ON l.id = q.link_id WHERE q.id = $1`,
        [id],
      );
      // versions are never reused: the bumped one stays, everything else is back
      expect(qr).toEqual({
        data: 'https://example.com/old',
        foreground: 'rgb(0,0,0)',
        status: 'ready',
        render_version: 2,
        url: 'https://example.com/old',
      });
      expect((await pub().get(`/q/${code}`)).headers.location).toBe('https://example.com/old');
      // the undone update leaves no audit entry; the creation's stays
      const audited = await t.db.query(
        `SELECT action FROM audit_log WHERE resource_type = 'qr' AND resource_id = $1`,
        [String(id)],
      );
      expect(audited).toEqual([{ action: 'qr.create' }]);
    });

    it("404 for an unknown id and another user's code, which stays unchanged", async () => {
      const { id } = await create({ type: 'text', data: 'mine' });
      expectError(
        await t.http().put(`/api/qr/${id}/update`).set(other.auth).send({ data: 'theirs' }),
        404,
      );
      expectError(
        await t.http().put('/api/qr/2147483000/update').set(user.auth).send({ data: 'x' }),
        404,
      );
      const [qr] = await t.db.query(`SELECT data FROM qr_codes WHERE id = $1`, [id]);
      expect(qr.data).toBe('mine');
    });
  });

  describe('DELETE /api/qr/:id/delete', () => {
    it('removes both rows and the channel assignments, queues the image deletion; the short link is gone', async () => {
      const { id, code } = await create({ type: 'text', data: 'bye' });
      const [qr] = await t.db.query(`SELECT link_id FROM qr_codes WHERE id = $1`, [id]);
      const [channel] = await t.db.query(
        `INSERT INTO channels (user_id, name) VALUES ($1, 'c') RETURNING id`,
        [user.id],
      );
      await t.db.query(
        `INSERT INTO channel_items (channel_id, user_id, item_type, item_id) VALUES ($1, $2, 'qr', $3)`,
        [channel.id, user.id, id],
      );
      expect((await pub().get(`/q/${code}`)).status).toBe(200);

      const res = await t.http().delete(`/api/qr/${id}/delete`).set(user.auth);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ error: 0, message: 'QR code has been deleted successfully.' });
      expect(await t.db.query(`SELECT id FROM qr_codes WHERE id = $1`, [id])).toEqual([]);
      expect(await t.db.query(`SELECT id FROM links WHERE id = $1`, [qr.link_id])).toEqual([]);
      expect(
        await t.db.query(`SELECT id FROM channel_items WHERE item_type = 'qr' AND item_id = $1`, [
          id,
        ]),
      ).toEqual([]);
      const job = await queue.getJob(`qr-delete-${code}`);
      expect({ name: job?.name, data: job?.data }).toEqual({
        name: JOB.deleteQrImages,
        data: { code },
      });
      expect((await pub().get(`/q/${code}`)).status).toBe(404);
      expectError(await t.http().delete(`/api/qr/${id}/delete`).set(user.auth), 404);
      expectError(await t.http().get(`/api/qr/${id}`).set(user.auth), 404);
    });

    it("404 for another user's code, which stays", async () => {
      const { id } = await create({ type: 'text', data: 'mine' });
      expectError(await t.http().delete(`/api/qr/${id}/delete`).set(other.auth), 404);
      expect(await t.db.query(`SELECT id FROM qr_codes WHERE id = $1`, [id])).toHaveLength(1);
      expectError(await t.http().delete('/api/qr/abc/delete').set(user.auth), 400, /^id: /);
    });
  });

  describe('public /q/<code>', () => {
    it('link: 302 to the URL, Cache-Control private, max-age=90', async () => {
      const { code } = await create({ type: 'link', data: 'https://example.com/a?b=1' });
      const res = await pub().get(`/q/${code}`);
      expect(res.status).toBe(302);
      expect(res.headers.location).toBe('https://example.com/a?b=1');
      expect(res.headers['cache-control']).toBe('private, max-age=90');
    });

    it.each([
      ['email', 'someone@example.com', 'mailto:someone@example.com'],
      [
        'email',
        { email: 'a@example.com', subject: 'Hi there', body: 'L1\nL2' },
        'mailto:a@example.com?subject=Hi%20there&body=L1%0D%0AL2',
      ],
      ['phone', '+15551234567', 'tel:+15551234567'],
      ['sms', { phone: '+15551234', message: 'Hello, you' }, 'sms:+15551234?body=Hello%2C%20you'],
      ['sms', { phone: '5551234' }, 'sms:5551234'],
    ])('%s %j: 302 to %s', async (type, data, location) => {
      const { code } = await create({ type, data });
      const res = await pub().get(`/q/${code}`);
      expect([res.status, res.headers.location, res.headers['cache-control']]).toEqual([
        302,
        location,
        'private, max-age=90',
      ]);
    });

    it('vcard: a .vcf download with escaped vCard 3.0 text', async () => {
      const { code } = await create({
        type: 'vcard',
        data: {
          fname: 'Ada',
          lname: 'Love;lace',
          org: 'A, B & C',
          street: '1 Road\nFlat 2',
          email: 'ada@example.com',
        },
      });
      const res = await pub()
        .get(`/q/${code}`)
        .buffer(true)
        .parse((r, cb) => {
          let s = '';
          r.on('data', (c: Buffer) => (s += c.toString('utf8')));
          r.on('end', () => cb(null, s));
        });
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('text/vcard; charset=utf-8');
      expect(res.headers['content-disposition']).toBe(`attachment; filename="${code}.vcf"`);
      expect(res.body).toBe(
        [
          'BEGIN:VCARD',
          'VERSION:3.0',
          'N:Love\\;lace;Ada;;;',
          'FN:Ada Love\\;lace',
          'ORG:A\\, B & C',
          'EMAIL;TYPE=INTERNET:ada@example.com',
          'ADR;TYPE=WORK:;;1 Road\\nFlat 2;;;;',
          'END:VCARD',
          '',
        ].join('\r\n'),
      );
    });

    it('text: a small escaped HTML page under a strict CSP', async () => {
      const { code } = await create({
        type: 'text',
        data: '<script>alert("x")</script> & \'q\'\nline 2',
      });
      const res = await pub().get(`/q/${code}`);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.headers['content-security-policy']).toMatch(
        /^default-src 'none'; base-uri 'none'; frame-ancestors 'none'; style-src 'sha256-[A-Za-z0-9+/=]+'; form-action 'none'$/,
      );
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.text).toContain(
        '<pre>&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;q&#39;\nline 2</pre>',
      );
      expect(res.text).not.toContain('<script>');
    });

    it('the page style matches the hash in its CSP', async () => {
      const { code } = await create({ type: 'text', data: 'x' });
      const res = await pub().get(`/q/${code}`);
      const style = /<style>([^<]*)<\/style>/.exec(res.text)?.[1] as string;
      const hash = require('node:crypto').createHash('sha256').update(style).digest('base64');
      expect(res.headers['content-security-policy']).toContain(`style-src 'sha256-${hash}'`);
    });

    it('wifi: a page with the network, the password and the security, escaped', async () => {
      const { code } = await create({
        type: 'wifi',
        data: { ssid: '<Cafe> & "Bar"', pass: 'p<a>ss&word', hidden: true },
      });
      const res = await pub().get(`/q/${code}`);
      expect(res.status).toBe(200);
      expect(res.headers['content-security-policy']).toMatch(/^default-src 'none'/);
      expect(res.text).toContain(
        '<dt>Network</dt><dd><code>&lt;Cafe&gt; &amp; &quot;Bar&quot;</code></dd>',
      );
      expect(res.text).toContain('<dt>Password</dt><dd><code>p&lt;a&gt;ss&amp;word</code></dd>');
      expect(res.text).toContain('<dt>Security</dt><dd><code>WPA</code></dd>');
      expect(res.text).toContain('<dt>Hidden</dt>');
      expect(res.text).not.toMatch(/<Cafe>|p<a>ss/);
      const open = await create({ type: 'wifi', data: { ssid: 'Open' } });
      const page = (await pub().get(`/q/${open.code}`)).text;
      expect(page).toContain('None (open network)');
      expect(page).not.toContain('Password');
    });

    it('is served on PUBLIC_URL only: /q/ on a branded domain is a 404', async () => {
      const { code } = await create({ type: 'link', data: 'https://example.com/' });
      const domain = await insertDomain(t, user.id);
      const res = await pub().get(`/q/${code}`).set('Host', domain.host);
      expect(res.status).toBe(404);
      expect(res.headers.location).toBeUndefined();
      expect((await pub().get(`/q/${code}`).set('Host', 'short.test')).status).toBe(302);
    });

    it('404 for unknown and malformed codes, 405 for other methods, HEAD without a body', async () => {
      const { code } = await create({ type: 'text', data: 'x' });
      for (const path of [
        '/q/Nope1234',
        '/q/',
        '/q/a.b',
        '/q/..%2Fetc',
        `/q/${code}/x`,
        `/q/${code}.gif`,
        `/q/${'a'.repeat(65)}`,
      ]) {
        expect([path, (await pub().get(path)).status]).toEqual([path, 404]);
      }
      const post = await pub().post(`/q/${code}`);
      expect([post.status, post.headers.allow]).toEqual([405, 'GET, HEAD']);
      const head = await pub().head(`/q/${code}`);
      expect(head.status).toBe(200);
      expect(head.text ?? '').toBe('');
    });

    it('images: 404 until rendered, then served with public caching, an ETag and 304', async () => {
      const { code } = await create({ type: 'text', data: 'x' });
      expect((await pub().get(`/q/${code}.png`)).status).toBe(404);
      expect((await pub().get(`/q/${code}.svg`)).status).toBe(404);
      const dir = join(process.env.STORAGE_DIR as string, 'qr');
      await mkdir(dir, { recursive: true });
      await writeFile(join(dir, `${code}.png`), Buffer.from('89504e470d0a1a0a', 'hex'));
      await writeFile(join(dir, `${code}.svg`), '<svg xmlns="http://www.w3.org/2000/svg"/>');

      const png = await pub().get(`/q/${code}.png`);
      expect(png.status).toBe(200);
      expect(png.headers).toMatchObject({
        'content-type': 'image/png',
        'cache-control': 'public, max-age=300',
        'content-length': '8',
      });
      expect(png.headers.etag).toMatch(/^"[0-9a-f]+-[0-9a-f]+-[0-9a-f]+"$/);
      expect(Buffer.compare(png.body, Buffer.from('89504e470d0a1a0a', 'hex'))).toBe(0);
      const again = await pub().get(`/q/${code}.png`).set('If-None-Match', png.headers.etag);
      expect([again.status, again.headers.etag]).toEqual([304, png.headers.etag]);

      const svg = await pub().get(`/q/${code}.svg`);
      expect(svg.status).toBe(200);
      expect(svg.headers['content-type']).toBe('image/svg+xml');
      expect(svg.headers['content-security-policy']).toMatch(/^default-src 'none'/);
    });

    it('images of a deleted code are not served even while the files still exist', async () => {
      const { id, code } = await create({ type: 'text', data: 'x' });
      const dir = join(process.env.STORAGE_DIR as string, 'qr');
      await mkdir(dir, { recursive: true });
      await writeFile(join(dir, `${code}.png`), 'png');
      expect((await pub().get(`/q/${code}.png`)).status).toBe(200);
      await t.http().delete(`/api/qr/${id}/delete`).set(user.auth).expect(200);
      expect((await pub().get(`/q/${code}.png`)).status).toBe(404);
    });
  });

  describe('scans', () => {
    const statsOf = async (id: number) => (await t.http().get(`/api/qr/${id}`).set(user.auth)).body;

    it('a browser scan is counted after the fold; bots and previews are not; HEAD is not', async () => {
      const { id, code } = await create({ type: 'link', data: 'https://example.com' });
      await pub().get(`/q/${code}`).set('User-Agent', BROWSER_UA).expect(302);
      await pub().get(`/q/${code}`).set('User-Agent', PREVIEW_UA).expect(302);
      await pub()
        .get(`/q/${code}`)
        .set(
          'User-Agent',
          'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
        )
        .expect(302);
      await pub().head(`/q/${code}`).set('User-Agent', BROWSER_UA).expect(302);
      await eventually(async () => {
        await foldStats(t);
        return (await statsOf(id)).data.clicks >= 1;
      });
      await new Promise((r) => setTimeout(r, 200));
      await foldStats(t);
      const body = await statsOf(id);
      expect(body.data).toMatchObject({
        clicks: 1,
        uniqueClicks: 1,
        topBrowsers: { Chrome: '1' },
        topReferrers: { Direct: '1' },
      });
      expect(body.details.scans).toBe(1);
      const [stored] = await t.db.query(
        `SELECT clicks::int FROM link_stats_total t JOIN qr_codes q ON q.link_id = t.link_id WHERE q.id = $1`,
        [id],
      );
      expect(stored.clicks).toBe(1);
    });

    it('a scan referred by Facebook counts as network01; pages and downloads count too', async () => {
      const { id, code } = await create({ type: 'text', data: 'hello' });
      await pub()
        .get(`/q/${code}`)
        .set('User-Agent', BROWSER_UA)
        .set('Referer', 'https://m.facebook.com/story.php?id=1')
        .expect(200);
      const vcard = await create({ type: 'vcard', data: { fname: 'A' } });
      await pub().get(`/q/${vcard.code}`).set('User-Agent', BROWSER_UA).expect(200);
      await eventually(async () => {
        await foldStats(t);
        return (await statsOf(id)).data.clicks === 1 && (await statsOf(vcard.id)).data.clicks === 1;
      });
      const { data } = await statsOf(id);
      expect(data.socialCount).toEqual({ network01: 1, network02: 0, network03: 0 });
      expect(data.topReferrers).toEqual({ 'm.facebook.com': '1' });
    });

    it('the visitor is the client behind a trusted proxy (X-Forwarded-For from loopback)', async () => {
      const { id, code } = await create({ type: 'phone', data: '+15551234' });
      await pub()
        .get(`/q/${code}`)
        .set('User-Agent', BROWSER_UA)
        .set('X-Forwarded-For', '8.8.8.8')
        .expect(302);
      await eventually(async () => (await statsOf(id)).data.clicks === 1);
      expect((await statsOf(id)).data.topCountries).toEqual({ 'United States': '1' });
    });

    it('image downloads are not scans', async () => {
      const { id, code } = await create({ type: 'text', data: 'x' });
      const dir = join(process.env.STORAGE_DIR as string, 'qr');
      await mkdir(dir, { recursive: true });
      await writeFile(join(dir, `${code}.png`), 'png');
      await pub().get(`/q/${code}.png`).set('User-Agent', BROWSER_UA).expect(200);
      await new Promise((r) => setTimeout(r, 200));
      await foldStats(t);
      expect((await statsOf(id)).data.clicks).toBe(0);
    });
  });

  it('documents every route with its envelope in /docs-json', async () => {
    const doc = (await t.http().get('/docs-json')).body;
    expect(
      Object.keys(doc.paths)
        .filter((p) => p.startsWith('/api/qr'))
        .sort(),
    ).toEqual([
      '/api/qr',
      '/api/qr/add',
      '/api/qr/{id}',
      '/api/qr/{id}/delete',
      '/api/qr/{id}/stats',
      '/api/qr/{id}/update',
    ]);
    expect(
      doc.paths['/api/qr'].get.responses['200'].content['application/json'].schema.properties.data
        .properties.qrs,
    ).toBeDefined();
    // one model per type, told apart by `type` (a vCard with an e-mail is not an e-mail code)
    expect(doc.components.schemas.QrDetailsVcardView.properties).toEqual(
      expect.objectContaining({
        type: expect.objectContaining({ enum: ['vcard'] }),
        status: expect.anything(),
        image: expect.anything(),
        reason: expect.anything(),
      }),
    );
    expect(doc.components.schemas.QrReadView.properties.details.discriminator.propertyName).toBe(
      'type',
    );
    expect(doc.components.schemas.CreateQrVcardDto.required).toEqual(
      expect.arrayContaining(['type', 'data']),
    );
    expect(
      doc.paths['/api/qr/add'].post.requestBody.content['application/json'].schema.discriminator
        .mapping,
    ).toEqual(expect.objectContaining({ vcard: '#/components/schemas/CreateQrVcardDto' }));
  });
});
