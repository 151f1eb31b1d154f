import { Agent, get as httpGet } from 'node:http';

import { WorkerHost } from '@nestjs/bullmq';
import { INestApplicationContext, Logger } from '@nestjs/common';

import {
  createTestApp,
  createTestWorker,
  createUser,
  DATE_TIME,
  expectError,
  TestApp,
  TestUser,
} from './support/app';
import { ImportProcessor } from '../apps/worker/src/imports/import.processor';
import { QrProcessor } from '../apps/worker/src/qr/qr.processor';
import { StatsFoldProcessor } from '../apps/worker/src/stats/stats-fold.processor';
import { DeliveryGate } from '../apps/worker/src/webhooks/delivery-gate';
import { WebhookSender } from '../apps/worker/src/webhooks/webhook-sender';
import { WebhookProcessor } from '../apps/worker/src/webhooks/webhook.processor';
import { BROWSER_UA, eventually, PREVIEW_UA } from './support/stats';
import { Blackhole, Receiver, Received, signatureValid } from './support/webhooks';

const ALLOW = { WEBHOOK_ALLOW_HOSTS: '127.0.0.1' };
const ALL_EVENTS = [
  'link.created',
  'link.updated',
  'link.deleted',
  'link.clicked',
  'qr.created',
  'qr.scanned',
];
const GOOGLEBOT = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('webhooks', () => {
  let t: TestApp;
  let worker: INestApplicationContext;
  let receiver: Receiver;
  let base: string;

  beforeAll(async () => {
    t = await createTestApp(ALLOW);
    worker = await createTestWorker({ ...ALLOW, STATS_FOLD_SECONDS: '1' });
    receiver = await Receiver.start();
    await new Promise<void>((resolve) => t.server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(t.server.address() as { port: number }).port}`;
  });
  afterAll(async () => {
    agent.destroy();
    await worker.close();
    await receiver.close();
    await t.close();
  });

  async function addWebhook(u: TestUser, body: Record<string, unknown>) {
    const res = await t.http().post('/api/webhook/add').set(u.auth).send(body);
    expect(res.status).toBe(200);
    return res.body as { error: number; id: number; secret: string };
  }

  const agent = new Agent({ keepAlive: true, maxSockets: 50 });
  const visit = (alias: string, ua = BROWSER_UA, ip = '8.8.8.8') =>
    new Promise<number>((resolve, reject) => {
      const req = httpGet(
        `${base}/${alias}`,
        {
          agent,
          headers: {
            Host: 'short.test',
            'User-Agent': ua,
            'X-Forwarded-For': ip,
            'Accept-Language': 'fr-CH, fr;q=0.9, en;q=0.8',
          },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
    });

  describe('routes', () => {
    it('adds, lists, updates and deletes, with the documented fields', async () => {
      const u = await createUser(t);
      const added = await addWebhook(u, {
        url: receiver.url('/routes'),
        events: ['link.created', 'link.created', 'qr.scanned'],
      });
      expect(Object.keys(added).sort()).toEqual(['error', 'id', 'secret']);
      expect(added.error).toBe(0);
      expect(Number.isInteger(added.id)).toBe(true);
      expect(added.secret).toMatch(/^whsec_[A-Za-z0-9]{32}$/);

      const own = await addWebhook(u, {
        url: 'https://hooks.example.com/x',
        events: ['link.deleted'],
        secret: 'my-own-secret-0123456789',
      });
      expect(own.secret).toBe('my-own-secret-0123456789');

      const list = await t.http().get('/api/webhooks').set(u.auth);
      expect(list.status).toBe(200);
      expect(list.body.error).toBe('0');
      expect(list.body.data.result).toBe(2);
      expect(list.body.data.webhooks.map((w: { id: number }) => w.id)).toEqual([own.id, added.id]);
      const entry = list.body.data.webhooks[1];
      expect(Object.keys(entry).sort()).toEqual(
        ['date', 'disabledReason', 'events', 'failingSince', 'id', 'status', 'url'].sort(),
      );
      expect(entry).toMatchObject({
        id: added.id,
        url: receiver.url('/routes'),
        events: ['link.created', 'qr.scanned'],
        status: 'active',
        disabledReason: null,
        failingSince: null,
      });
      expect(entry.date).toMatch(DATE_TIME);
      expect(JSON.stringify(list.body)).not.toContain(added.secret);

      const updated = await t
        .http()
        .put(`/api/webhook/${added.id}/update`)
        .set(u.auth)
        .send({ events: ['link.updated'], active: false });
      expect(updated.status).toBe(200);
      expect(updated.body).toMatchObject({
        error: 0,
        id: added.id,
        events: ['link.updated'],
        status: 'disabled',
        disabledReason: 'disabled by its owner',
      });
      const enabled = await t
        .http()
        .put(`/api/webhook/${added.id}/update`)
        .set(u.auth)
        .send({ active: true });
      expect(enabled.body).toMatchObject({ status: 'active', disabledReason: null });

      const del = await t.http().delete(`/api/webhook/${added.id}/delete`).set(u.auth);
      expect(del.body).toEqual({ error: 0, message: 'Webhook has been deleted successfully.' });
      expectError(await t.http().delete(`/api/webhook/${added.id}/delete`).set(u.auth), 404);
    });

    it('the 20-webhook limit holds under 40 concurrent adds: exactly 20 are stored', async () => {
      const u = await createUser(t);
      const answers = await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          t
            .http()
            .post('/api/webhook/add')
            .set(u.auth)
            .send({ url: `https://hooks.example.com/${i}`, events: ['link.created'] }),
        ),
      );
      expect(answers.filter((r) => r.status === 200)).toHaveLength(20);
      for (const r of answers.filter((r) => r.status !== 200))
        expectError(r, 403, /^Limit reached: a user may have 20 webhooks$/);
      const [row] = await t.db.query(`SELECT count(*)::int AS n FROM webhooks WHERE user_id = $1`, [
        u.id,
      ]);
      expect(row.n).toBe(20);
    });

    it('refuses bad fields with a 400 naming them', async () => {
      const u = await createUser(t);
      const post = (body: unknown) =>
        t
          .http()
          .post('/api/webhook/add')
          .set(u.auth)
          .send(body as object);
      expectError(await post({ events: ['link.created'] }), 400, /url/);
      expectError(
        await post({ url: 'http://hooks.example.com/', events: ['link.created'] }),
        400,
        /^url: must be an absolute https URL \(http: an operator can allow it with WEBHOOK_ALLOW_HOSTS=hooks\.example\.com\)$/,
      );
      expectError(
        await post({ url: 'ftp://hooks.example.com/', events: ['link.created'] }),
        400,
        /url/,
      );
      expectError(
        await post({ url: 'https://u:p@hooks.example.com/', events: ['link.created'] }),
        400,
        /url/,
      );
      expectError(await post({ url: 'not a url', events: ['link.created'] }), 400, /url/);
      expectError(await post({ url: 'https://hooks.example.com/', events: [] }), 400, /events/);
      expectError(
        await post({ url: 'https://hooks.example.com/', events: ['link.exploded'] }),
        400,
        /events/,
      );
      expectError(
        await post({ url: 'https://hooks.example.com/', events: 'link.created' }),
        400,
        /events/,
      );
      expectError(
        await post({
          url: 'https://hooks.example.com/',
          events: ['link.created'],
          secret: 'short',
        }),
        400,
        /secret/,
      );
      expectError(
        await post({ url: 'https://hooks.example.com/', events: ['link.created'], secret: 7 }),
        400,
        /secret/,
      );
      expectError(
        await post({ url: 'https://hooks.example.com/', events: ['link.created'], extra: 1 }),
        400,
        /extra: unknown field/,
      );
      expectError(
        await t.http().put('/api/webhook/99999999/update').set(u.auth).send({ active: false }),
        404,
      );
      const { id } = await addWebhook(u, {
        url: 'https://hooks.example.com/',
        events: ['link.created'],
      });
      expectError(
        await t.http().put(`/api/webhook/${id}/update`).set(u.auth).send({}),
        400,
        /at least one field/,
      );
      expectError(
        await t.http().put(`/api/webhook/${id}/update`).set(u.auth).send({ active: 'yes' }),
        400,
        /active/,
      );
      expectError(
        await t
          .http()
          .put(`/api/webhook/${id}/update`)
          .set(u.auth)
          .send({ url: 'https://10.0.0.8/' }),
        400,
        /url: must not point to a private/,
      );
      expectError(await t.http().get('/api/webhook/abc/deliveries').set(u.auth), 400);
      expectError(await t.http().get('/api/webhooks'), 401);
    });

    it("another user's webhook is a 404 on every route", async () => {
      const owner = await createUser(t);
      const other = await createUser(t);
      const { id } = await addWebhook(owner, {
        url: 'https://hooks.example.com/',
        events: ['link.created'],
      });
      expectError(
        await t.http().put(`/api/webhook/${id}/update`).set(other.auth).send({ active: false }),
        404,
      );
      expectError(await t.http().delete(`/api/webhook/${id}/delete`).set(other.auth), 404);
      expectError(await t.http().get(`/api/webhook/${id}/deliveries`).set(other.auth), 404);
      expectError(await t.http().post(`/api/webhook/${id}/test`).set(other.auth), 404);
      const list = await t.http().get('/api/webhooks').set(other.auth);
      expect(list.body.data.result).toBe(0);
      const [row] = await t.db.query(`SELECT disabled_at FROM webhooks WHERE id = $1`, [id]);
      expect(row.disabled_at).toBeNull();
    });

    it('a WEBHOOK_ALLOW_HOSTS entry with a port exempts that port only', async () => {
      const portOnly = await createTestApp({ WEBHOOK_ALLOW_HOSTS: `127.0.0.1:${receiver.port}` });
      try {
        const u = await createUser(portOnly);
        const add = (url: string) =>
          portOnly
            .http()
            .post('/api/webhook/add')
            .set(u.auth)
            .send({ url, events: ['link.created'] });
        expect((await add(receiver.url('/port-ok'))).status).toBe(200);
        const other = receiver.port === 65535 ? 65534 : receiver.port + 1;
        expectError(
          await add(`http://127.0.0.1:${other}/x`),
          400,
          new RegExp(
            `^url: must be an absolute https URL \\(http: an operator can allow it with WEBHOOK_ALLOW_HOSTS=127\\.0\\.0\\.1:${other}\\)$`,
          ),
        );
        expectError(
          await add(`https://127.0.0.1:${other}/x`),
          400,
          new RegExp(
            `^url: must not point to a private, loopback or link-local address \\(an operator can allow it with WEBHOOK_ALLOW_HOSTS=127\\.0\\.0\\.1:${other}\\)$`,
          ),
        );
      } finally {
        await portOnly.close();
      }
    });

    it('a private, loopback or link-local target is refused (literal at once, names at delivery)', async () => {
      const u = await createUser(t);
      for (const url of [
        'https://127.0.0.2/x',
        'https://10.1.2.3/x',
        'https://192.168.1.1/x',
        'https://169.254.169.254/latest/meta-data',
        'https://[::1]/x',
        'https://[::ffff:127.0.0.1]/x',
        'https://[fe80::1]/x',
        // IPv4-compatible (::/96) and IPv4-mapped, whatever they embed
        'https://[::127.0.0.1]/x',
        'https://[::a9fe:a9fe]/latest',
        'https://[::808:808]/x',
        'https://[::ffff:808:808]/x',
      ]) {
        expectError(
          await t
            .http()
            .post('/api/webhook/add')
            .set(u.auth)
            .send({ url, events: ['link.created'] }),
          400,
          /^url: must not point to a private, loopback or link-local address \(an operator can allow it with WEBHOOK_ALLOW_HOSTS=\S+\)$/,
        );
      }
      // a host name that resolves to loopback: accepted, then refused when it is sent
      const { id } = await addWebhook(u, {
        url: `https://localhost:${receiver.port}/private`,
        events: ['link.created'],
      });
      const test = await t.http().post(`/api/webhook/${id}/test`).set(u.auth);
      expect(test.status).toBe(200);
      expect(test.body).toEqual({
        error: 0,
        message: 'A test delivery has been queued.',
        delivery: expect.any(Number),
      });
      let delivery: Record<string, unknown> = {};
      await eventually(async () => {
        const res = await t.http().get(`/api/webhook/${id}/deliveries`).set(u.auth);
        delivery = res.body.data.deliveries[0];
        return delivery.status === 'failed';
      }, 15_000);
      expect(delivery).toMatchObject({
        id: test.body.delivery,
        event: 'webhook.test',
        attempts: 1,
        responseStatus: null,
        message: `refused: localhost resolves to a private, loopback or link-local address (an operator can allow it with WEBHOOK_ALLOW_HOSTS=localhost:${receiver.port})`,
      });
      expect(receiver.on('/private')).toHaveLength(0);
    });
  });

  describe('deliveries', () => {
    function expectSigned(r: Received, secret: string, event: string) {
      expect(signatureValid(r, secret)).toBe(true);
      expect(signatureValid(r, `${secret}x`)).toBe(false);
      expect(r.headers['content-type']).toBe('application/json');
      expect(r.headers['x-webhook-event']).toBe(event);
      expect(r.headers['x-webhook-id']).toBe(r.body.id);
      expect(r.headers['x-webhook-timestamp']).toMatch(/^\d{10}$/);
      expect(Math.abs(Number(r.headers['x-webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(
        60,
      );
      expect(r.headers['x-webhook-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
      expect(Object.keys(r.body).sort()).toEqual(['created', 'data', 'event', 'id']);
      expect(r.body.id).toMatch(UUID);
      expect(r.body.event).toBe(event);
      expect(r.body.created).toMatch(DATE_TIME);
    }

    it('delivers every event type once, signed, with the documented body', async () => {
      const u = await createUser(t);
      const { secret } = await addWebhook(u, { url: receiver.url('/all'), events: ALL_EVENTS });
      const got = (event: string) => receiver.on('/all').filter((r) => r.body.event === event);

      const created = await t
        .http()
        .post('/api/url/add')
        .set(u.auth)
        .send({
          url: 'https://target.example/page',
          custom: `wh${Date.now().toString(36)}`,
          title: 'Title',
          description: 'Desc',
        });
      expect(created.status).toBe(200);
      const { id, shorturl } = created.body;
      const alias = shorturl.split('/').pop();
      await eventually(async () => got('link.created').length === 1, 10_000);
      const c = got('link.created')[0];
      expectSigned(c, secret, 'link.created');
      expect(c.body.data).toEqual({
        id,
        alias,
        shorturl,
        longurl: 'https://target.example/page',
        title: 'Title',
        description: 'Desc',
        domain: null,
        date: expect.stringMatching(DATE_TIME),
      });

      const upd = await t.http().put(`/api/url/${id}/update`).set(u.auth).send({ title: 'New' });
      expect(upd.status).toBe(200);
      await eventually(async () => got('link.updated').length === 1, 10_000);
      const up = got('link.updated')[0];
      expectSigned(up, secret, 'link.updated');
      expect(up.body.data).toEqual({ ...c.body.data, title: 'New', date: c.body.data.date });

      expect(await visit(alias)).toBe(302);
      expect(await visit(alias, GOOGLEBOT)).toBe(302);
      await eventually(async () => got('link.clicked').length === 1, 15_000);
      const clicked = got('link.clicked')[0];
      expectSigned(clicked, secret, 'link.clicked');
      expect(Object.keys(clicked.body.data).sort()).toEqual(['alias', 'id', 'shorturl', 'visits']);
      expect(clicked.body.data).toMatchObject({ id, alias, shorturl });
      const visits = clicked.body.data.visits as Array<Record<string, unknown>>;
      expect(visits).toEqual([
        {
          date: new Date().toISOString().slice(0, 10),
          country: 'United States',
          referrer: 'Direct',
          browser: 'Chrome',
          os: 'Windows',
          device: 'desktop',
          language: 'fr',
        },
      ]);
      expect(clicked.raw).not.toContain('8.8.8.8');

      const qr = await t
        .http()
        .post('/api/qr/add')
        .set(u.auth)
        .send({ type: 'link', data: 'https://qr.example/x', name: 'Flyer' });
      expect(qr.status).toBe(200);
      await eventually(async () => got('qr.created').length === 1, 10_000);
      const qc = got('qr.created')[0];
      expectSigned(qc, secret, 'qr.created');
      expect(qc.body.data).toEqual({
        id: qr.body.id,
        name: 'Flyer',
        type: 'link',
        link: qr.body.link,
        date: expect.stringMatching(DATE_TIME),
      });

      const code = String(qr.body.link).split('/q/')[1];
      expect(await visit(`q/${code}`)).toBe(302);
      await eventually(async () => got('qr.scanned').length === 1, 15_000);
      const scanned = got('qr.scanned')[0];
      expectSigned(scanned, secret, 'qr.scanned');
      expect(Object.keys(scanned.body.data).sort()).toEqual(['id', 'link', 'visits']);
      expect(scanned.body.data).toMatchObject({ id: qr.body.id, link: qr.body.link });
      expect(scanned.body.data.visits).toHaveLength(1);

      const del = await t.http().delete(`/api/url/${id}/delete`).set(u.auth);
      expect(del.status).toBe(200);
      await eventually(async () => got('link.deleted').length === 1, 10_000);
      const d = got('link.deleted')[0];
      expectSigned(d, secret, 'link.deleted');
      expect(d.body.data).toEqual({ id, alias, shorturl });

      // once each, distinct ids, and the history says delivered
      await new Promise((r) => setTimeout(r, 1500));
      expect(
        receiver
          .on('/all')
          .map((r) => r.body.event)
          .sort(),
      ).toEqual([...ALL_EVENTS].sort());
      expect(new Set(receiver.on('/all').map((r) => r.body.id)).size).toBe(6);
      const [{ webhook_id }] = await t.db.query(
        `SELECT id AS webhook_id FROM webhooks WHERE user_id = $1`,
        [u.id],
      );
      const history = await t.http().get(`/api/webhook/${webhook_id}/deliveries`).set(u.auth);
      expect(history.body.data.result).toBe(6);
      for (const item of history.body.data.deliveries) {
        expect(Object.keys(item).sort()).toEqual([
          'attempts',
          'date',
          'event',
          'id',
          'message',
          'responseStatus',
          'status',
        ]);
        expect(item).toMatchObject({
          status: 'delivered',
          attempts: 1,
          responseStatus: 200,
          message: null,
        });
      }
    }, 60_000);

    it('only subscribed events of the owner are sent; a disabled webhook gets nothing', async () => {
      const u = await createUser(t);
      const other = await createUser(t);
      await addWebhook(u, { url: receiver.url('/only-deleted'), events: ['link.deleted'] });
      const off = await addWebhook(u, { url: receiver.url('/off'), events: ['link.created'] });
      await t.http().put(`/api/webhook/${off.id}/update`).set(u.auth).send({ active: false });
      await addWebhook(other, { url: receiver.url('/other'), events: ['link.created'] });
      const res = await t
        .http()
        .post('/api/url/add')
        .set(u.auth)
        .send({ url: 'https://target.example/' });
      expect(res.status).toBe(200);
      await new Promise((r) => setTimeout(r, 2000));
      expect(receiver.on('/only-deleted')).toHaveLength(0);
      expect(receiver.on('/off')).toHaveLength(0);
      expect(receiver.on('/other')).toHaveLength(0);
    });

    it('a receiver failing 3 times gets it on the 4th attempt, same id', async () => {
      const u = await createUser(t);
      receiver.answer = (r, n) => (r.path === '/flaky' && n <= 3 ? 500 : 200);
      const { id, secret } = await addWebhook(u, {
        url: receiver.url('/flaky'),
        events: ['link.created'],
      });
      const test = await t.http().post(`/api/webhook/${id}/test`).set(u.auth);
      expect(test.status).toBe(200);
      await eventually(async () => receiver.on('/flaky').length === 4, 40_000, 200);
      const got = receiver.on('/flaky');
      expect(new Set(got.map((r) => r.headers['x-webhook-id'])).size).toBe(1);
      for (const r of got) expect(signatureValid(r, secret)).toBe(true);
      expect(got[3].body.data).toEqual({
        webhook: id,
        message: 'A test delivery: your receiver is reachable and verifies signatures.',
      });
      // exponential backoff: 2 s, 4 s, 8 s (the first three attempts within a minute)
      const gaps = got.slice(1).map((r, i) => r.at - got[i].at);
      expect(gaps[0]).toBeGreaterThanOrEqual(1500);
      expect(gaps[1]).toBeGreaterThan(gaps[0]);
      expect(gaps[2]).toBeGreaterThan(gaps[1]);
      expect(got[2].at - got[0].at).toBeLessThan(60_000);
      await eventually(async () => {
        const res = await t.http().get(`/api/webhook/${id}/deliveries`).set(u.auth);
        return res.body.data.deliveries[0].status === 'delivered';
      });
      const res = await t.http().get(`/api/webhook/${id}/deliveries`).set(u.auth);
      expect(res.body.data.deliveries[0]).toMatchObject({
        status: 'delivered',
        attempts: 4,
        responseStatus: 200,
        message: null,
      });
      const list = await t.http().get('/api/webhooks').set(u.auth);
      expect(list.body.data.webhooks[0].failingSince).toBeNull();
      receiver.answer = () => 200;
    }, 60_000);

    it('a webhook failing for a day is disabled and says so in its list entry', async () => {
      const u = await createUser(t);
      receiver.answer = (r) => (r.path === '/down' ? 503 : 200);
      const { id } = await addWebhook(u, { url: receiver.url('/down'), events: ['link.created'] });
      await t.db.query(
        `UPDATE webhooks SET failing_since = now() - interval '25 hours' WHERE id = $1`,
        [id],
      );
      await t.http().post(`/api/webhook/${id}/test`).set(u.auth);
      let entry: Record<string, unknown> = {};
      await eventually(async () => {
        const res = await t.http().get('/api/webhooks').set(u.auth);
        entry = res.body.data.webhooks[0];
        return entry.status === 'disabled';
      }, 15_000);
      expect(entry.disabledReason).toMatch(
        /^deliveries failed for a day \(since .* UTC; last: the receiver answered HTTP 503\)$/,
      );
      expect(entry.failingSince).toMatch(DATE_TIME);
      const res = await t.http().get(`/api/webhook/${id}/deliveries`).set(u.auth);
      expect(res.body.data.deliveries[0]).toMatchObject({
        status: 'failed',
        attempts: 1,
        responseStatus: 503,
      });
      expectError(await t.http().post(`/api/webhook/${id}/test`).set(u.auth), 403, /disabled/);
      // nothing more is sent to it
      await t.http().post('/api/url/add').set(u.auth).send({ url: 'https://target.example/' });
      await new Promise((r) => setTimeout(r, 1500));
      expect(receiver.on('/down')).toHaveLength(1);
      receiver.answer = () => 200;
    }, 30_000);

    it('keeps the newest 100 finished deliveries of a webhook', async () => {
      const u = await createUser(t);
      const { id } = await addWebhook(u, {
        url: receiver.url('/history'),
        events: ['link.created'],
      });
      await t.db.query(
        `INSERT INTO webhook_deliveries (webhook_id, event, data, status, attempts, queued_at, finished_at)
         SELECT $1, 'link.created', '{}'::json, 'delivered', 1, now(), now() FROM generate_series(1, 150)`,
        [id],
      );
      await t.http().post(`/api/webhook/${id}/test`).set(u.auth);
      await eventually(async () => receiver.on('/history').length === 1);
      await eventually(async () => {
        const res = await t.http().get(`/api/webhook/${id}/deliveries`).set(u.auth);
        return res.body.data.result === 100;
      });
      const res = await t.http().get(`/api/webhook/${id}/deliveries?limit=1`).set(u.auth);
      expect(res.body.data.deliveries[0].event).toBe('webhook.test');
    });

    it('visit batches that all fell due at once (a worker behind) still leave a second apart', async () => {
      const u = await createUser(t);
      const { id } = await addWebhook(u, {
        url: receiver.url('/late'),
        events: ['link.clicked', 'link.created'],
      });
      // three batches whose slots passed while no worker sent them, and one ordinary event
      await t.db.query(
        `INSERT INTO webhook_deliveries (webhook_id, event, data, not_before)
         SELECT $1::int, 'link.clicked', json_build_object('batch', n), now() - interval '5 seconds'
           FROM generate_series(1, 3) AS n
         UNION ALL SELECT $1, 'link.created', '{}'::json, now() - interval '5 seconds'`,
        [id],
      );
      await eventually(async () => receiver.on('/late').length === 4, 20_000, 100);
      const clicked = receiver.on('/late').filter((r) => r.body.event === 'link.clicked');
      expect(clicked.map((r) => r.body.data.batch).sort()).toEqual([1, 2, 3]);
      const at = clicked.map((r) => r.at).sort((a, b) => a - b);
      for (let i = 1; i < at.length; i++) expect(at[i] - at[i - 1]).toBeGreaterThanOrEqual(800);
      // the ordinary event did not wait for the visit batches' slots
      const created = receiver.on('/late').find((r) => r.body.event === 'link.created') as Received;
      expect(created.at).toBeLessThan(at[2]);
    });
    it('1 000 visits in a second: batched deliveries summing to 1 000, no bots, one a second', async () => {
      const u = await createUser(t);
      const { secret } = await addWebhook(u, {
        url: receiver.url('/clicks'),
        events: ['link.clicked'],
      });
      const created = await t
        .http()
        .post('/api/url/add')
        .set(u.auth)
        .send({ url: 'https://target.example/busy' });
      const alias = String(created.body.shorturl).split('/').pop() as string;
      const started = Date.now();
      const jobs: Array<Promise<number>> = [];
      for (let i = 0; i < 1000; i++) jobs.push(visit(alias, BROWSER_UA, `8.8.${i % 250}.${i % 4}`));
      for (let i = 0; i < 100; i++) jobs.push(visit(alias, i % 2 ? GOOGLEBOT : PREVIEW_UA));
      expect(new Set(await Promise.all(jobs))).toEqual(new Set([302]));
      // sent as fast as the machine serves them (about a second when it is not shared)
      expect(Date.now() - started).toBeLessThan(30_000);
      const count = () =>
        receiver.on('/clicks').reduce((n, r) => n + (r.body.data.visits as unknown[]).length, 0);
      await eventually(async () => count() >= 1000, 40_000, 200);
      await new Promise((r) => setTimeout(r, 2500));
      expect(count()).toBe(1000);
      const got = receiver.on('/clicks');
      expect(got.length).toBeGreaterThanOrEqual(10);
      for (const r of got) {
        expect(signatureValid(r, secret)).toBe(true);
        expect(r.body.event).toBe('link.clicked');
        const visits = r.body.data.visits as Array<{ browser: string }>;
        expect(visits.length).toBeGreaterThan(0);
        expect(visits.length).toBeLessThanOrEqual(100);
        for (const v of visits) expect(v.browser).toBe('Chrome');
      }
      expect(JSON.stringify(got.map((r) => r.body))).not.toMatch(/Googlebot|facebook|8\.8\./i);
      const at = got.map((r) => r.at).sort((a, b) => a - b);
      for (let i = 1; i < at.length; i++) expect(at[i] - at[i - 1]).toBeGreaterThanOrEqual(800);
    }, 90_000);
  });

  describe('fairness between webhooks', () => {
    /** `n` webhook.test deliveries of each webhook, written as the test route writes them. */
    const queueTests = (ids: number[], n: number) =>
      t.db.query(
        `INSERT INTO webhook_deliveries (webhook_id, event, data)
         SELECT w, 'webhook.test', json_build_object('webhook', w, 'n', n)
           FROM unnest($1::int[]) AS w, generate_series(1, $2::int) AS n`,
        [ids, n],
      );

    it('POST /api/webhook/:id/test at most once per 10 s per webhook: 429 with Retry-After', async () => {
      const u = await createUser(t);
      const a = await addWebhook(u, { url: receiver.url('/turn-a'), events: ['link.created'] });
      const b = await addWebhook(u, { url: receiver.url('/turn-b'), events: ['link.created'] });
      expect((await t.http().post(`/api/webhook/${a.id}/test`).set(u.auth)).status).toBe(200);
      const again = await t.http().post(`/api/webhook/${a.id}/test`).set(u.auth);
      expectError(again, 429, /less than 10 s ago: retry in \d+ s$/);
      expect(Number(again.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(Number(again.headers['retry-after'])).toBeLessThanOrEqual(10);
      // another webhook has its own turn
      expect((await t.http().post(`/api/webhook/${b.id}/test`).set(u.auth)).status).toBe(200);
      await eventually(async () => receiver.on('/turn-a').length === 1);
      await new Promise((r) => setTimeout(r, 500));
      expect(receiver.on('/turn-a')).toHaveLength(1);
    });

    it("64 deliveries to a receiver that never answers (and 16 to one that never accepts) delay another tenant's by < 1 s", async () => {
      const blackhole = await Blackhole.start();
      const slow = await createUser(t);
      const hidden = await createUser(t);
      const other = await createUser(t);
      try {
        receiver.answer = (r) => (r.path.startsWith('/hang') ? 'hang' : 200);
        const hanging: number[] = [];
        for (let i = 0; i < 8; i++)
          hanging.push(
            (await addWebhook(slow, { url: receiver.url(`/hang-${i}`), events: ['link.created'] }))
              .id,
          );
        const silent: number[] = [];
        for (let i = 0; i < 2; i++)
          silent.push(
            (await addWebhook(hidden, { url: blackhole.url(`/x${i}`), events: ['link.created'] }))
              .id,
          );
        const fair = await addWebhook(other, {
          url: receiver.url('/fair-1'),
          events: ['link.created'],
        });
        const fair2 = await addWebhook(other, {
          url: receiver.url('/fair-2'),
          events: ['link.created'],
        });
        await queueTests(hanging, 8);
        await queueTests(silent, 8);
        const hangs = () => receiver.received.filter((r) => r.path.startsWith('/hang')).length;
        await eventually(async () => hangs() >= 8, 10_000, 50);

        // while the first wave hangs, and again while the retries and waiting ones take over
        for (const [path, id] of [
          ['/fair-1', fair.id],
          ['/fair-2', fair2.id],
        ] as const) {
          const sent = Date.now();
          expect((await t.http().post(`/api/webhook/${id}/test`).set(other.auth)).status).toBe(200);
          await eventually(async () => receiver.on(path).length === 1, 10_000, 20);
          expect([path, receiver.on(path)[0].at - sent]).toEqual([path, expect.any(Number)]);
          expect(receiver.on(path)[0].at - sent).toBeLessThan(1000);
          await new Promise((r) => setTimeout(r, 3000));
        }
        // at most 2 deliveries of a webhook and 8 of a user were ever in flight: the receiver saw
        // no more than 8 hanging requests at once (each hangs for the 5 s timeout)
        const at = receiver.received.filter((r) => r.path.startsWith('/hang')).map((r) => r.at);
        const mostAtOnce = Math.max(
          ...at.map((a) => at.filter((b) => b >= a && b < a + 4000).length),
        );
        expect(mostAtOnce).toBeLessThanOrEqual(8);
        // a receiver that never accepts fails within the 2 s connect timeout
        await eventually(async () => {
          const res = await t.http().get(`/api/webhook/${silent[0]}/deliveries`).set(hidden.auth);
          return res.body.data.deliveries.some(
            (d: { message: string | null }) => d.message === 'could not connect within 2 s',
          );
        }, 10_000);
      } finally {
        // their deliveries stop with them
        for (const u of [slow, hidden])
          await t.db.query('DELETE FROM webhooks WHERE user_id = $1', [u.id]);
        receiver.answer = () => 200;
        blackhole.close();
      }
    }, 60_000);

    it("a burst to healthy receivers is not slowed by the limits: 120 deliveries of a user's 6 webhooks within seconds", async () => {
      const u = await createUser(t);
      const ids: number[] = [];
      for (let i = 0; i < 6; i++)
        ids.push(
          (await addWebhook(u, { url: receiver.url(`/burst-${i}`), events: ['link.created'] })).id,
        );
      const started = Date.now();
      await queueTests(ids, 20);
      const got = () => receiver.received.filter((r) => r.path.startsWith('/burst-')).length;
      await eventually(async () => got() === 120, 20_000, 50);
      // waiting deliveries are woken as slots free (without it: a 2 s wait per round of 8)
      expect(Date.now() - started).toBeLessThan(8000);
    });

    it('a receiver that times out repeatedly is backed off (circuit breaker); an answer closes it', async () => {
      const sender = worker.get(WebhookSender);
      const gate = worker.get(DeliveryGate);
      sender.timeoutMs = 300;
      gate.breakerBaseMs = 2500;
      const u = await createUser(t);
      try {
        receiver.answer = (r) => (r.path === '/breaker' ? 'hang' : 200);
        const { id } = await addWebhook(u, {
          url: receiver.url('/breaker'),
          events: ['link.created'],
        });
        const started = Date.now();
        await queueTests([id], 8);
        // 5 attempts without an answer open the breaker (2 in flight: up to 6 sent); held for
        // 2.5 s, then one probe, which fails and holds them for 5 s. Without the breaker, the 8
        // deliveries and their retries after 2 s would make 16 requests within 3.5 s.
        await new Promise((r) => setTimeout(r, 3500));
        const early = receiver.on('/breaker').filter((r) => r.at - started < 3500).length;
        expect(early).toBeGreaterThanOrEqual(5);
        expect(early).toBeLessThanOrEqual(8);
        // the receiver comes back: the next probe's answer closes the breaker, all are delivered
        receiver.answer = () => 200;
        await eventually(
          async () => {
            const res = await t.http().get(`/api/webhook/${id}/deliveries`).set(u.auth);
            return (
              res.body.data.deliveries.length === 8 &&
              res.body.data.deliveries.every((d: { status: string }) => d.status === 'delivered')
            );
          },
          25_000,
          200,
        );
      } finally {
        sender.timeoutMs = 5000;
        gate.breakerBaseMs = 30_000;
        receiver.answer = () => 200;
      }
    }, 40_000);
  });

  it("every BullMQ worker's error events go to the structured log, not to console.error", () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const printed = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      const hosts: Array<[string, WorkerHost]> = [
        ['QrProcessor', worker.get(QrProcessor)],
        ['WebhookProcessor', worker.get(WebhookProcessor)],
        ['StatsFoldProcessor', worker.get(StatsFoldProcessor)],
        ['ImportProcessor', worker.get(ImportProcessor)],
      ];
      for (const [name, host] of hosts) {
        warn.mockClear();
        host.worker.emit('error', new Error(`could not renew lock for job probe-${name}`));
        expect([name, warn.mock.calls.map((c) => String(c[0]))]).toEqual([
          name,
          [`worker error: could not renew lock for job probe-${name}`],
        ]);
      }
      expect(printed).not.toHaveBeenCalled();
    } finally {
      warn.mockRestore();
      printed.mockRestore();
    }
  });
});
