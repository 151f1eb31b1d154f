import { formatDay } from '@app/common';

import { createUser, expectError, TestUser, useTestApp } from './support/app';
import {
  apiRoutes,
  countOwned,
  expectPagination,
  insertLink,
  insertQr,
  onePage,
  resourceApi,
  uniq,
} from './support/resources';

const BASE = 'http://short.test';

const ROUTES = apiRoutes({
  'GET /api/channels': { list: 'channels' },
  'GET /api/channel/{id}': {},
  'POST /api/channel/add': { body: { name: 'x' } },
  'POST /api/channel/{channelid}/assign/{type}/{itemid}': { path: '/api/channel/1/assign/links/1' },
  'PUT /api/channel/{id}/update': { body: { name: 'x' } },
  'DELETE /api/channel/{id}/delete': {},
});

describe('channels', () => {
  const t = useTestApp();
  const channels = resourceApi(t, 'channel', '/api/channels', 'channels');
  const { add, update, list, get: items, remove } = channels;
  const assign = (u: TestUser, channelId: number | string, type: string, itemId: number | string) =>
    t.http().post(`/api/channel/${channelId}/assign/${type}/${itemId}`).set(u.auth);
  const row = async (id: number) =>
    (
      await t.db.query(
        `SELECT user_id, name, description, color, starred FROM channels WHERE id = $1`,
        [id],
      )
    )[0];
  const newChannel = async (u: TestUser, name = 'Channel') =>
    (await add(u, { name }).expect(200)).body.id as number;
  const today = () => formatDay(new Date());

  ROUTES.itChecksEveryRoute(t);

  describe('POST /api/channel/add and GET /api/channels', () => {
    it('creates a channel with defaults, answering the documented shape', async () => {
      const u = await createUser(t);
      const res = await add(u, { name: 'News' }).expect(200);
      const stored = { name: 'News', description: '', color: '#000000', starred: false };
      expect(res.body).toEqual({ error: 0, id: expect.any(Number), ...stored });
      expect(await row(res.body.id)).toEqual({ user_id: u.id, ...stored });
    });

    it('creates a channel with every field and lists it', async () => {
      const u = await createUser(t);
      const body = {
        name: 'Weekly',
        description: 'd'.repeat(500),
        color: '#1E90ff',
        starred: true,
      };
      const res = await add(u, body).expect(200);
      expect(res.body).toEqual({ error: 0, id: expect.any(Number), ...body });
      expect((await list(u).expect(200)).body).toEqual(
        channels.onePage([{ id: res.body.id, ...body }]),
      );
    });

    it("paginates the caller's channels only", async () => {
      const u = await createUser(t);
      const other = await createUser(t);
      await newChannel(other);
      const ids = [await newChannel(u, 'a'), await newChannel(u, 'b'), await newChannel(u, 'c')];
      await channels.expectPagination(u, ids);
    });

    it.each([
      ['no name', {}, /^name: /],
      ['an empty name', { name: '' }, /^name: must be 1 to 100/],
      ['a 101-character name', { name: 'n'.repeat(101) }, /^name: must be 1 to 100/],
      ['a numeric name', { name: 1 }, /^name: /],
      [
        'a 501-character description',
        { name: 'n', description: 'd'.repeat(501) },
        /^description: must be at most 500/,
      ],
      ['a numeric description', { name: 'n', description: 3 }, /^description: /],
      ['color "red"', { name: 'n', color: 'red' }, /^color: must be a HEX colour #RRGGBB/],
      ['color "#fff"', { name: 'n', color: '#fff' }, /^color: /],
      ['color "#GGGGGG"', { name: 'n', color: '#GGGGGG' }, /^color: /],
      ['color without #', { name: 'n', color: '1e90ff' }, /^color: /],
      ['starred 1', { name: 'n', starred: 1 }, /^starred: must be a boolean/],
      ['starred "true"', { name: 'n', starred: 'true' }, /^starred: /],
      ['starred null', { name: 'n', starred: null }, /^starred: /],
      ['an unknown field', { name: 'n', items: [] }, /items: unknown field/],
    ])('400 for %s, storing nothing', async (_label, body, message) => {
      const u = await createUser(t);
      expectError(await add(u, body), 400, message);
      expect(await countOwned(t, 'channels', u.id)).toBe(0);
    });
  });

  describe('PUT /api/channel/:id/update', () => {
    it('changes any field alone or together', async () => {
      const u = await createUser(t);
      const created = { name: 'Old', description: 'old', color: '#111111' };
      const id = (await add(u, created).expect(200)).body.id;
      expect((await update(u, id, { starred: true }).expect(200)).body).toEqual({
        error: 0,
        message: expect.any(String),
      });
      expect(await row(id)).toEqual({ user_id: u.id, ...created, starred: true });
      const changed = { name: 'New', description: '', color: '#ABCDEF', starred: false };
      await update(u, id, changed).expect(200);
      expect(await row(id)).toEqual({ user_id: u.id, ...changed });
    });

    it('400 for an empty body and invalid fields; nothing changes', async () => {
      const u = await createUser(t);
      const id = (await add(u, { name: 'Same', color: '#222222' }).expect(200)).body.id;
      const before = await row(id);
      expectError(
        await update(u, id, {}),
        400,
        /^Send at least one field to change: color, description, name, starred$/,
      );
      expectError(await update(u, id, { name: '' }), 400, /^name: /);
      expectError(await update(u, id, { color: 'red' }), 400, /^color: /);
      expectError(await update(u, id, { starred: 1 }), 400, /^starred: /);
      expectError(await update(u, id, { name: null }), 400, /^name: /);
      expectError(await update(u, id, { name: 'ok', user_id: 2 }), 400, /user_id: unknown field/);
      expectError(await update(u, '1x', { name: 'ok' }), 400, /^id: /);
      expect(await row(id)).toEqual(before);
    });

    it("404 for an unknown id and another user's channel, which stays unchanged", async () => {
      const owner = await createUser(t);
      const intruder = await createUser(t);
      const id = await newChannel(owner, 'Owned');
      expectError(await update(intruder, id, { name: 'Stolen' }), 404, /^Channel not found$/);
      expectError(await update(owner, 2147483647, { name: 'x' }), 404, /^Channel not found$/);
      expect(await row(id)).toMatchObject({ name: 'Owned' });
    });
  });

  describe('assignment and GET /api/channel/:id', () => {
    it('lists assigned links, bio pages and QR codes in the documented shape, newest assignment first', async () => {
      const u = await createUser(t);
      const id = await newChannel(u);
      const [domain] = await t.db.query(
        `INSERT INTO domains (user_id, domain, host) VALUES ($1, $2, $3) RETURNING id, domain`,
        [u.id, `https://${uniq('d')}.example.com`, `${uniq('h')}.example.com`],
      );
      const [urlA, urlB] = ['https://target.example/a?x=1', 'https://target.example/b'];
      const titled = await insertLink(t, u.id, { title: 'Titled link', url: urlA });
      const branded = await insertLink(t, u.id, { domainId: domain.id, url: urlB });
      const bio = await insertLink(t, u.id, {
        kind: 'bio',
        title: 'My bio',
        url: 'https://bio.example/',
      });
      const qr = await insertQr(t, u.id, { name: 'Menu QR' });
      const unnamedQr = await insertQr(t, u.id);
      for (const [type, itemId] of [
        ['links', titled.id],
        ['links', branded.id],
        ['bio', bio.id],
        ['qr', qr.id],
        ['qr', unnamedQr.id],
      ] as const) {
        const res = await assign(u, id, type, itemId).expect(200);
        expect(res.body).toEqual({ error: 0, message: expect.any(String) });
      }
      const date = today();
      const item = (type: string, id: number, title: string, preview: string, link: string) => ({
        type,
        id,
        title,
        preview,
        link,
        date,
      });
      const qrItem = (q: { id: number; alias: string }, title: string) =>
        item('qr', q.id, title, `${BASE}/q/${q.alias}.png`, `${BASE}/q/${q.alias}`);
      expect((await items(u, id).expect(200)).body).toEqual(
        onePage('items', [
          qrItem(unnamedQr, unnamedQr.alias),
          qrItem(qr, 'Menu QR'),
          item('bio', bio.id, 'My bio', `${BASE}/${bio.alias}`, `${BASE}/${bio.alias}`),
          item('links', branded.id, branded.alias, urlB, `${domain.domain}/${branded.alias}`),
          item('links', titled.id, 'Titled link', urlA, `${BASE}/${titled.alias}`),
        ]),
      );
    });

    it('date is the assignment day', async () => {
      const u = await createUser(t);
      const id = await newChannel(u);
      const link = await insertLink(t, u.id);
      await assign(u, id, 'links', link.id).expect(200);
      await t.db.query(
        `UPDATE channel_items SET created_at = '2023-04-05T23:30:00Z' WHERE channel_id = $1`,
        [id],
      );
      expect((await items(u, id)).body.data.items[0].date).toBe('2023-04-05');
    });

    it('assigning twice is harmless; one item can be in several channels', async () => {
      const u = await createUser(t);
      const a = await newChannel(u, 'a');
      const b = await newChannel(u, 'b');
      const link = await insertLink(t, u.id);
      await assign(u, a, 'links', link.id).expect(200);
      await assign(u, a, 'links', link.id).expect(200);
      await Promise.all([
        assign(u, a, 'links', link.id).expect(200),
        assign(u, a, 'links', link.id).expect(200),
      ]);
      await assign(u, b, 'links', link.id).expect(200);
      expect((await items(u, a)).body.data).toMatchObject({
        result: 1,
        items: [{ type: 'links', id: link.id }],
      });
      expect((await items(u, b)).body.data).toMatchObject({
        result: 1,
        items: [{ type: 'links', id: link.id }],
      });
    });

    it('paginates items newest assignment first', async () => {
      const u = await createUser(t);
      const id = await newChannel(u);
      const links = [
        await insertLink(t, u.id),
        await insertLink(t, u.id),
        await insertLink(t, u.id),
      ];
      // assigned in reverse creation order: the list follows assignment, not item age
      for (const l of [...links].reverse()) await assign(u, id, 'links', l.id).expect(200);
      await expectPagination(
        t,
        u,
        `/api/channel/${id}`,
        'items',
        [...links].reverse().map((l) => l.id),
      );
    });

    it('items whose link or QR code was deleted are not listed nor counted', async () => {
      const u = await createUser(t);
      const id = await newChannel(u);
      const kept = await insertLink(t, u.id);
      const gone = await insertLink(t, u.id);
      const qr = await insertQr(t, u.id);
      await assign(u, id, 'links', kept.id).expect(200);
      await assign(u, id, 'links', gone.id).expect(200);
      await assign(u, id, 'qr', qr.id).expect(200);
      await t.db.query(`DELETE FROM links WHERE id = ANY($1)`, [[gone.id, qr.linkId]]);
      expect((await items(u, id)).body.data).toMatchObject({
        result: 1,
        maxpage: 1,
        items: [{ type: 'links', id: kept.id }],
      });
    });

    it('400 naming the type for anything but links, bio or qr', async () => {
      const u = await createUser(t);
      const id = await newChannel(u);
      const link = await insertLink(t, u.id);
      for (const type of ['link', 'LINKS', 'qrs', 'campaign']) {
        expectError(
          await assign(u, id, type, link.id),
          400,
          /^type: must be one of links, bio, qr$/,
        );
      }
      expectError(await assign(u, 'abc', 'links', link.id), 400, /^channelid: /);
      expectError(await assign(u, id, 'links', 'abc'), 400, /^itemid: /);
      expect(await countOwned(t, 'channel_items', u.id)).toBe(0);
    });

    it("404 for another user's link, bio page or QR code, and for items of the wrong kind; nothing assigned", async () => {
      const u = await createUser(t);
      const other = await createUser(t);
      const id = await newChannel(u);
      const theirLink = await insertLink(t, other.id);
      const theirBio = await insertLink(t, other.id, { kind: 'bio' });
      const theirQr = await insertQr(t, other.id);
      const myBio = await insertLink(t, u.id, { kind: 'bio' });
      const myLink = await insertLink(t, u.id);
      const myQr = await insertQr(t, u.id);
      expectError(await assign(u, id, 'links', theirLink.id), 404, /^Link not found$/);
      expectError(await assign(u, id, 'bio', theirBio.id), 404, /^Bio page not found$/);
      expectError(await assign(u, id, 'qr', theirQr.id), 404, /^QR code not found$/);
      expectError(await assign(u, id, 'links', myBio.id), 404, /^Link not found$/);
      expectError(await assign(u, id, 'bio', myLink.id), 404, /^Bio page not found$/);
      expectError(await assign(u, id, 'links', myQr.linkId), 404, /^Link not found$/);
      expectError(await assign(u, id, 'qr', 2147483647), 404, /^QR code not found$/);
      expect(await countOwned(t, 'channel_items', u.id)).toBe(0);
    });

    it("404 for assigning to, or reading, another user's channel or an unknown one", async () => {
      const owner = await createUser(t);
      const intruder = await createUser(t);
      const id = await newChannel(owner);
      const ownerLink = await insertLink(t, owner.id);
      await assign(owner, id, 'links', ownerLink.id).expect(200);
      const intruderLink = await insertLink(t, intruder.id);
      expectError(await assign(intruder, id, 'links', intruderLink.id), 404, /^Channel not found$/);
      expectError(
        await assign(intruder, 2147483647, 'links', intruderLink.id),
        404,
        /^Channel not found$/,
      );
      expectError(await items(intruder, id), 404, /^Channel not found$/);
      expectError(await items(intruder, 2147483647), 404, /^Channel not found$/);
      expectError(await items(intruder, 'abc'), 400, /^id: /);
      expect(await countOwned(t, 'channel_items', intruder.id)).toBe(0);
      expect((await items(owner, id)).body.data.result).toBe(1);
    });
  });

  describe('DELETE /api/channel/:id/delete', () => {
    it('deletes the channel and unassigns its items, which stay intact', async () => {
      const u = await createUser(t);
      const id = await newChannel(u);
      const keep = await newChannel(u, 'other');
      const link = await insertLink(t, u.id);
      const qr = await insertQr(t, u.id);
      await assign(u, id, 'links', link.id).expect(200);
      await assign(u, id, 'qr', qr.id).expect(200);
      await assign(u, keep, 'links', link.id).expect(200);
      const res = await remove(u, id).expect(200);
      expect(res.body).toEqual({ error: 0, message: expect.any(String) });
      expect(
        await t.db.query(`SELECT 1 FROM channel_items WHERE channel_id = $1`, [id]),
      ).toHaveLength(0);
      expect(
        await t.db.query(`SELECT id FROM links WHERE id = ANY($1) ORDER BY id`, [
          [link.id, qr.linkId],
        ]),
      ).toHaveLength(2);
      expect(await t.db.query(`SELECT id FROM qr_codes WHERE id = $1`, [qr.id])).toHaveLength(1);
      expect((await items(u, keep)).body.data.items).toEqual([
        expect.objectContaining({ type: 'links', id: link.id }),
      ]);
      expectError(await items(u, id), 404);
      expectError(await remove(u, id), 404);
    });

    it("404 for another user's channel, which stays with its items", async () => {
      const owner = await createUser(t);
      const intruder = await createUser(t);
      const id = await newChannel(owner);
      const link = await insertLink(t, owner.id);
      await assign(owner, id, 'links', link.id).expect(200);
      expectError(await remove(intruder, id), 404, /^Channel not found$/);
      expect(await countOwned(t, 'channels', owner.id)).toBe(1);
      expect((await items(owner, id)).body.data.result).toBe(1);
    });
  });
});
