import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';

import { INestApplicationContext } from '@nestjs/common';

import { LinkHealthProcessor } from '../apps/worker/src/health/link-health.processor';
import { LinkHealthRunner } from '../apps/worker/src/health/link-health-runner';
import { LinkHealthStore } from '../apps/worker/src/health/link-health-store';
import {
  createTestApp,
  createTestWorker,
  createUser,
  DATE_TIME,
  expectError,
  TestApp,
  TestUser,
} from './support/app';
import { addLink } from './support/links';
import { eventually, foldStats, recordVisit } from './support/stats';
import { Receiver } from './support/webhooks';

const MAIN = 'short.test';
const FALLBACK = 'https://fallback.example/sorry';
const HOST_SECONDS = 30;

/** One request a target server got. */
interface Hit {
  method: string;
  path: string;
  at: number;
}

/**
 * A target the test controls: `routes` answers each path (a status, or a redirect to a URL);
 * every request is recorded. GET /big sends a body of 50 MB, to show a probe never reads one.
 */
class Target {
  readonly hits: Hit[] = [];
  routes = new Map<string, (method: string) => { status: number; location?: string }>();
  bigBodyFinished = false;
  private server!: Server;
  port = 0;

  static async start(): Promise<Target> {
    const t = new Target();
    t.server = createServer((req: IncomingMessage, res: ServerResponse) => {
      const path = req.url ?? '/';
      t.hits.push({ method: req.method ?? '', path, at: Date.now() });
      if (path === '/big' && req.method === 'GET') {
        res.writeHead(200, { 'Content-Type': 'application/octet-stream' });
        const chunk = Buffer.alloc(64 * 1024, 120);
        let sent = 0;
        const pump = () => {
          while (sent < 50 * 1024 * 1024) {
            sent += chunk.length;
            if (!res.write(chunk)) return void res.once('drain', pump);
          }
          res.end(() => (t.bigBodyFinished = true));
        };
        res.on('error', () => undefined);
        return pump();
      }
      const route = t.routes.get(path);
      const answer = route ? route(req.method ?? '') : { status: 404 };
      res.writeHead(answer.status, answer.location ? { Location: answer.location } : {});
      res.end(req.method === 'HEAD' ? undefined : 'hello');
    });
    await new Promise<void>((resolve) => t.server.listen(0, '127.0.0.1', resolve));
    t.port = (t.server.address() as { port: number }).port;
    return t;
  }

  url(path: string, host = '127.0.0.1'): string {
    return `http://${host}:${this.port}${path}`;
  }

  on(path: string): Hit[] {
    return this.hits.filter((h) => h.path === path);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

describe('destination health', () => {
  let t: TestApp;
  let worker: INestApplicationContext;
  let runner: LinkHealthRunner;
  /** allowed (WEBHOOK_ALLOW_HOSTS names 127.0.0.1 and localhost with its port) */
  let target: Target;
  /** not allowed: nothing may ever reach it */
  let forbidden: Target;
  let receiver: Receiver;
  let u: TestUser;
  let webhookId: number;

  beforeAll(async () => {
    target = await Target.start();
    forbidden = await Target.start();
    receiver = await Receiver.start();
    const env = {
      WEBHOOK_ALLOW_HOSTS: [
        `127.0.0.1:${target.port}`,
        `localhost:${target.port}`,
        `127.0.0.1:${receiver.port}`,
      ].join(','),
      HEALTH_HOST_SECONDS: String(HOST_SECONDS),
      HEALTH_FAIL_THRESHOLD: '3',
      HEALTH_TIMEOUT_MS: '3000',
    };
    t = await createTestApp(env);
    worker = await createTestWorker(env);
    runner = worker.get(LinkHealthRunner);
    u = await createUser(t);
    const hook = await t
      .http()
      .post('/api/webhook/add')
      .set(u.auth)
      .send({
        url: receiver.url('/health-events'),
        events: ['link.broken', 'link.recovered', 'link.drifted'],
      });
    expect(hook.status).toBe(200);
    webhookId = hook.body.id;
  });
  afterAll(async () => {
    await worker?.close();
    await t?.close();
    await receiver?.close();
    await target?.close();
    await forbidden?.close();
  });

  const health = (user: TestUser, id: number) =>
    t.http().get(`/api/url/${id}/health`).set(user.auth);

  /** Where the short link sends a visitor now. */
  const location = async (alias: string): Promise<string | undefined> => {
    const res = await t.http().get(`/${alias}`).set('Host', MAIN);
    return res.headers.location as string | undefined;
  };

  /** A link visited today (recorded and folded) and enrolled for probes. */
  async function visitedLink(body: Record<string, unknown>) {
    const link = await addLink(t, u, body);
    await recordVisit(t, { linkId: link.id, userId: u.id });
    // folded here or by the worker's own fold (which may hold the batch a moment longer)
    await eventually(async () => {
      await foldStats(t);
      const days = await t.db.query(`SELECT 1 FROM link_stats_daily WHERE link_id = $1`, [link.id]);
      return days.length > 0;
    });
    await runner.enrol();
    // due only when the test says so (enrolment spreads first probes over HEALTH_CHECK_SECONDS)
    const [rows] = await t.db.query(
      `UPDATE link_health SET next_at = now() + interval '1 year' WHERE link_id = $1 RETURNING 1`,
      [link.id],
    );
    expect(rows).toHaveLength(1);
    return link;
  }

  const probes = async (id: number): Promise<number> => {
    const [row] = await t.db.query(
      `SELECT jsonb_array_length(history) AS n FROM link_health WHERE link_id = $1`,
      [id],
    );
    return row?.n ?? 0;
  };

  /**
   * One probe of the link now: made due, the host's spacing lifted (its Redis key deleted), and
   * the runner's batch run (the worker's own schedule may take it first: either way one probe).
   */
  async function probeNow(id: number): Promise<void> {
    const before = await probes(id);
    await eventually(
      async () => {
        if ((await probes(id)) > before) return true;
        await t.redis.client.del(t.redis.key('health', 'host', '127.0.0.1'));
        await t.redis.client.del(t.redis.key('health', 'host', 'localhost'));
        await t.db.query(
          `UPDATE link_health SET next_at = now() WHERE link_id = $1 AND lease IS NULL`,
          [id],
        );
        await runner.probeDue();
        return (await probes(id)) > before;
      },
      30_000,
      200,
    );
  }

  it('200 → 500 → 200: ok, broken after the threshold serving fallbackurl, recovered after 2 good probes; one webhook each', async () => {
    let status = 200;
    target.routes.set('/flaky', () => ({ status }));
    const link = await visitedLink({ url: target.url('/flaky'), fallbackurl: FALLBACK });

    const fresh = await health(u, link.id);
    expect(fresh.status).toBe(200);
    // the envelope's error, and the health under data (whose error is the last probe's)
    expect(fresh.body).toEqual({
      error: 0,
      data: {
        status: 'unknown',
        checked: null,
        httpstatus: null,
        error: null,
        since: null,
        history: [],
      },
    });

    await probeNow(link.id);
    const ok = (await health(u, link.id)).body.data;
    expect(Object.keys(ok).sort()).toEqual(
      ['error', 'status', 'checked', 'httpstatus', 'since', 'history'].sort(),
    );
    expect(ok).toMatchObject({ status: 'ok', httpstatus: 200, error: null });
    expect(ok.checked).toMatch(DATE_TIME);
    expect(ok.since).toMatch(DATE_TIME);
    expect(ok.history).toHaveLength(1);
    expect(Object.keys(ok.history[0]).sort()).toEqual(['date', 'error', 'httpstatus', 'ms']);
    expect(ok.history[0]).toMatchObject({ httpstatus: 200, error: null, date: ok.checked });
    expect(Number.isInteger(ok.history[0].ms)).toBe(true);
    expect(await location(link.alias)).toBe(target.url('/flaky'));
    // HEAD answered 200: no GET
    expect(target.on('/flaky').map((h) => h.method)).toEqual(['HEAD']);

    status = 500;
    for (let i = 1; i < 3; i++) {
      await probeNow(link.id);
      const h = (await health(u, link.id)).body.data;
      expect(h).toMatchObject({
        status: 'ok',
        httpstatus: 500,
        error: 'the target answered HTTP 500',
      });
      expect(await location(link.alias)).toBe(target.url('/flaky'));
    }
    await probeNow(link.id);
    const broken = (await health(u, link.id)).body.data;
    expect(broken).toMatchObject({ status: 'broken', httpstatus: 500 });
    expect(broken.since).toMatch(DATE_TIME);
    expect(broken.history.map((p: { httpstatus: number }) => p.httpstatus)).toEqual([
      500, 500, 500, 200,
    ]);
    // the api's cache was told: the short link now serves the fallback
    await eventually(async () => (await location(link.alias)) === FALLBACK, 5000);

    await probeNow(link.id);
    expect((await health(u, link.id)).body.data.status).toBe('broken');

    status = 200;
    await probeNow(link.id);
    expect((await health(u, link.id)).body.data).toMatchObject({
      status: 'broken',
      httpstatus: 200,
    });
    expect(await location(link.alias)).toBe(FALLBACK);
    await probeNow(link.id);
    const recovered = (await health(u, link.id)).body.data;
    expect(recovered).toMatchObject({ status: 'ok', httpstatus: 200, error: null });
    expect(recovered.history).toHaveLength(7);
    await eventually(async () => (await location(link.alias)) === target.url('/flaky'), 5000);

    // exactly one event per crossing, in the outbox and at the receiver
    const rows: Array<{ event: string; data: Record<string, unknown> }> = await t.db.query(
      `SELECT event, data FROM webhook_deliveries WHERE webhook_id = $1 AND (data->>'id')::int = $2 ORDER BY id`,
      [webhookId, link.id],
    );
    expect(rows.map((r) => r.event)).toEqual(['link.broken', 'link.recovered']);
    expect(rows[0].data).toEqual({
      id: link.id,
      alias: link.alias,
      shorturl: link.shorturl,
      longurl: target.url('/flaky'),
      fallbackurl: FALLBACK,
      httpstatus: 500,
      error: 'the target answered HTTP 500',
      since: broken.since,
    });
    expect(rows[1].data).toMatchObject({ id: link.id, httpstatus: 200, error: null });
    await eventually(async () => receiver.on('/health-events').length >= 2, 20_000);
    const sent = receiver
      .on('/health-events')
      .filter((r) => (r.body.data as { id: number }).id === link.id);
    // deliveries are jobs of their own: they may arrive in either order (`created` tells)
    expect(sent.map((r) => r.body.event).sort()).toEqual(['link.broken', 'link.recovered']);
    const created = Object.fromEntries(sent.map((r) => [r.body.event, r.body.created]));
    expect(created['link.broken'] <= created['link.recovered']).toBe(true);
  });

  it('HEAD refused → GET, without reading the body', async () => {
    target.routes.set('/no-head', (m) => ({ status: m === 'HEAD' ? 405 : 200 }));
    const link = await visitedLink({ url: target.url('/no-head') });
    await probeNow(link.id);
    expect((await health(u, link.id)).body.data).toMatchObject({ status: 'ok', httpstatus: 200 });
    expect(target.on('/no-head').map((h) => h.method)).toEqual(['HEAD', 'GET']);

    // HEAD /big is a 404 (no route): the GET that follows gets a 50 MB body, dropped unread
    const big = await visitedLink({ url: target.url('/big') });
    await probeNow(big.id);
    const h = (await health(u, big.id)).body.data;
    expect(h).toMatchObject({ status: 'ok', httpstatus: 200 });
    await new Promise((r) => setTimeout(r, 300));
    expect(target.bigBodyFinished).toBe(false);
  });

  it('drift: a redirect chain that now ends on another registrable domain is link.drifted, once', async () => {
    let end = target.url('/chain/end');
    target.routes.set('/chain/start', () => ({ status: 302, location: '/chain/mid' }));
    target.routes.set('/chain/mid', () => ({ status: 301, location: end }));
    target.routes.set('/chain/end', () => ({ status: 200 }));
    target.routes.set('/chain/elsewhere', () => ({ status: 200 }));
    const link = await visitedLink({ url: target.url('/chain/start') });
    await probeNow(link.id);
    expect((await health(u, link.id)).body.data.status).toBe('ok');
    const recorded = await t.db.query(`SELECT domain FROM link_health WHERE link_id = $1`, [
      link.id,
    ]);
    expect(recorded[0].domain).toBe('127.0.0.1');

    // the same chain now ends on another registrable domain (localhost)
    end = target.url('/chain/elsewhere', 'localhost');
    await probeNow(link.id);
    await probeNow(link.id);
    expect((await health(u, link.id)).body.data.status).toBe('ok');
    const events: Array<{ event: string; data: Record<string, unknown> }> = await t.db.query(
      `SELECT event, data FROM webhook_deliveries WHERE webhook_id = $1 AND (data->>'id')::int = $2`,
      [webhookId, link.id],
    );
    expect(events).toEqual([
      {
        event: 'link.drifted',
        data: {
          id: link.id,
          alias: link.alias,
          shorturl: link.shorturl,
          longurl: target.url('/chain/start'),
          domain: '127.0.0.1',
          finaldomain: 'localhost',
          finalurl: end,
        },
      },
    ]);
    expect(target.on('/chain/elsewhere').length).toBeGreaterThanOrEqual(2);
  });

  it('probes never reach a private address that is not allowed: literal, by DNS, or as a redirect hop', async () => {
    const literal = await visitedLink({ url: forbidden.url('/literal') });
    const byName = await visitedLink({ url: forbidden.url('/by-name', 'localhost') });
    target.routes.set('/hop', () => ({ status: 302, location: forbidden.url('/hop-target') }));
    target.routes.set('/loop', () => ({ status: 302, location: '/loop' }));
    const hop = await visitedLink({ url: target.url('/hop') });
    const loop = await visitedLink({ url: target.url('/loop') });
    for (const l of [literal, byName, hop, loop]) await probeNow(l.id);

    const a = (await health(u, literal.id)).body.data;
    expect(a).toMatchObject({ status: 'unknown', httpstatus: null });
    expect(a.history[0].error).toBe(
      `refused: 127.0.0.1 is a private, loopback or link-local address (an operator can allow it with WEBHOOK_ALLOW_HOSTS=127.0.0.1:${forbidden.port})`,
    );
    expect((await health(u, byName.id)).body.data.history[0].error).toBe(
      `refused: localhost resolves to a private, loopback or link-local address (an operator can allow it with WEBHOOK_ALLOW_HOSTS=localhost:${forbidden.port})`,
    );
    expect((await health(u, hop.id)).body.data.history[0].error).toMatch(
      /^refused: 127\.0\.0\.1 is/,
    );
    expect((await health(u, loop.id)).body.data.history[0]).toMatchObject({
      httpstatus: 302,
      error: 'more than 5 redirects',
    });
    expect(target.on('/loop')).toHaveLength(6);
    expect(forbidden.hits).toEqual([]);
  });

  it('at most one probe per host per HEALTH_HOST_SECONDS; the others are due again later', async () => {
    target.routes.set('/spaced-1', () => ({ status: 200 }));
    target.routes.set('/spaced-2', () => ({ status: 200 }));
    const one = await visitedLink({ url: target.url('/spaced-1') });
    const two = await visitedLink({ url: target.url('/spaced-2') });
    await t.redis.client.del(t.redis.key('health', 'host', '127.0.0.1'));
    await t.db.query(`UPDATE link_health SET next_at = now() WHERE link_id = ANY($1)`, [
      [one.id, two.id],
    ]);
    await eventually(async () => {
      await runner.probeDue();
      const rows = await t.db.query(
        `SELECT count(*)::int AS n FROM link_health WHERE link_id = ANY($1) AND next_at <= now()`,
        [[one.id, two.id]],
      );
      return rows[0].n === 0;
    });
    const hits = [...target.on('/spaced-1'), ...target.on('/spaced-2')];
    expect(hits).toHaveLength(1);
    const waiting = hits[0].path === '/spaced-1' ? two.id : one.id;
    const [row] = await t.db.query(
      `SELECT checked_at, lease, EXTRACT(EPOCH FROM next_at - now()) AS wait FROM link_health WHERE link_id = $1`,
      [waiting],
    );
    expect(row.checked_at).toBeNull();
    expect(row.lease).toBeNull();
    expect(Number(row.wait)).toBeGreaterThan(HOST_SECONDS - 5);
    expect(Number(row.wait)).toBeLessThan(2 * HOST_SECONDS + 1);

    // due again while the host's slot is held: still not probed
    await t.db.query(`UPDATE link_health SET next_at = now() WHERE link_id = $1`, [waiting]);
    await runner.probeDue();
    expect([...target.on('/spaced-1'), ...target.on('/spaced-2')]).toHaveLength(1);
    const ttl = await t.redis.client.pttl(t.redis.key('health', 'host', '127.0.0.1'));
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(HOST_SECONDS * 1000);
  });

  it('probes only links visited in the last 30 days', async () => {
    const visited = await visitedLink({ url: 'https://example.com/visited' });
    const never = await addLink(t, u, { url: 'https://example.com/never' });
    const old = await addLink(t, u, { url: 'https://example.com/old' });
    await t.db.query(
      `INSERT INTO link_stats_daily (link_id, day, clicks, uniques) VALUES ($1, current_date - 31, 5, 5)`,
      [old.id],
    );
    await runner.enrol();
    const rows: Array<{ link_id: number }> = await t.db.query(
      `SELECT link_id FROM link_health WHERE link_id = ANY($1) ORDER BY link_id`,
      [[visited.id, never.id, old.id]],
    );
    expect(rows.map((r) => r.link_id)).toEqual([visited.id]);
  });

  it('a changed url starts over (unknown; the fallback is no longer served)', async () => {
    target.routes.set('/gone', () => ({ status: 410 }));
    target.routes.set('/new-home', () => ({ status: 200 }));
    const link = await visitedLink({ url: target.url('/gone'), fallbackurl: FALLBACK });
    for (let i = 0; i < 3; i++) await probeNow(link.id);
    expect((await health(u, link.id)).body.data.status).toBe('broken');
    await eventually(async () => (await location(link.alias)) === FALLBACK, 5000);
    await t
      .http()
      .put(`/api/url/${link.id}/update`)
      .set(u.auth)
      .send({ url: target.url('/new-home') })
      .expect(200);
    expect(await location(link.alias)).toBe(target.url('/new-home'));
    const h = (await health(u, link.id)).body.data;
    expect(h).toMatchObject({ status: 'unknown', checked: null, since: null });
    expect(h.history).toHaveLength(3);
    await probeNow(link.id);
    expect((await health(u, link.id)).body.data.status).toBe('ok');
    // a broken link without a fallback keeps its target
    const bare = await visitedLink({ url: target.url('/gone') });
    for (let i = 0; i < 3; i++) await probeNow(bare.id);
    expect((await health(u, bare.id)).body.data.status).toBe('broken');
    expect(await location(bare.alias)).toBe(target.url('/gone'));
  });

  it("another user's link: the same 404 as GET /api/url/:id", async () => {
    const other = await createUser(t);
    const link = await addLink(t, u, { url: 'https://example.com/mine' });
    const read = await t.http().get(`/api/url/${link.id}`).set(other.auth);
    const h = await health(other, link.id);
    expectError(h, 404, /^Link not found$/);
    expect({ status: h.status, body: h.body }).toEqual({ status: read.status, body: read.body });
    expectError(await health(u, 999_999_999), 404, /^Link not found$/);
    expectError(await t.http().get('/api/url/abc/health').set(u.auth), 400);
  });

  it('fallbackurl: validated like url (400 naming it), shown in details, removed with null or ""', async () => {
    for (const [body, message] of [
      [{ fallbackurl: 'javascript:alert(1)' }, /^fallbackurl: /],
      [{ fallbackurl: `https://${MAIN}/loop` }, /^fallbackurl: must not point at this service/],
      [{ fallbackurl: 'not a url' }, /^fallbackurl: /],
      [{ fallbackurl: ['https://a.example/'] }, /^fallbackurl: /],
    ] as Array<[object, RegExp]>) {
      expectError(
        await t
          .http()
          .post('/api/url/add')
          .set(u.auth)
          .send({ url: 'https://example.com/', ...body }),
        400,
        message,
      );
    }
    const link = await addLink(t, u, { url: 'https://example.com/x', fallbackurl: FALLBACK });
    const details = async () =>
      (await t.http().get(`/api/url/${link.id}`).set(u.auth)).body.details.fallbackurl;
    expect(await details()).toBe(FALLBACK);
    expectError(
      await t
        .http()
        .put(`/api/url/${link.id}/update`)
        .set(u.auth)
        .send({ fallbackurl: `http://${MAIN}/x` }),
      400,
      /^fallbackurl: must not point at this service/,
    );
    expect(await details()).toBe(FALLBACK);
    for (const clear of [null, '']) {
      await t
        .http()
        .put(`/api/url/${link.id}/update`)
        .set(u.auth)
        .send({ fallbackurl: 'https://example.com/other' })
        .expect(200);
      expect(await details()).toBe('https://example.com/other');
      await t
        .http()
        .put(`/api/url/${link.id}/update`)
        .set(u.auth)
        .send({ fallbackurl: clear })
        .expect(200);
      expect(await details()).toBeNull();
    }
  });

  it('at scale: 100 000 visited links enrolled in one pass, first probes spread over the interval, a batch claimed in one statement', async () => {
    const owner = await createUser(t);
    const n = 100_000;
    await t.db.query(
      `INSERT INTO links (user_id, alias, url)
       SELECT $1, 'hscale' || g, 'https://h' || g || '.scale.example/' FROM generate_series(1, $2) g`,
      [owner.id, n],
    );
    await t.db.query(
      `INSERT INTO link_stats_daily (link_id, day, clicks, uniques)
       SELECT id, current_date - (id % 30), 1, 1 FROM links WHERE user_id = $1`,
      [owner.id],
    );
    let started = Date.now();
    await runner.enrol();
    const enrolMs = Date.now() - started;
    const [all] = await t.db.query(
      `SELECT count(*)::int AS n FROM link_health h JOIN links l ON l.id = h.link_id WHERE l.user_id = $1`,
      [owner.id],
    );
    expect(all.n).toBe(n);
    // the first probes as enrolled (the worker's own ticks may have probed the few due at once)
    const hours: Array<{ n: number; first: number; last: number }> = await t.db.query(
      `SELECT count(*)::int AS n,
              min(EXTRACT(EPOCH FROM h.next_at - to_timestamp($2::float8 / 1000)))::float AS first,
              max(EXTRACT(EPOCH FROM h.next_at - to_timestamp($2::float8 / 1000)))::float AS last
         FROM link_health h JOIN links l ON l.id = h.link_id
        WHERE l.user_id = $1 AND h.checked_at IS NULL AND h.lease IS NULL
        GROUP BY date_trunc('hour', h.next_at)`,
      [owner.id, started],
    );
    expect(hours.reduce((a, b) => a + b.n, 0)).toBeGreaterThan(n - 500);
    // 24 hours of first probes from the enrolment on, about 4 200 an hour: none near all at once
    expect(hours.length).toBeGreaterThanOrEqual(24);
    expect(Math.min(...hours.map((h) => h.first))).toBeGreaterThan(-1);
    expect(Math.max(...hours.map((h) => h.last))).toBeLessThan(86_400 + enrolMs / 1000 + 1);
    expect(Math.max(...hours.map((h) => h.n))).toBeLessThan((2 * n) / 24);

    // a tick's Postgres cost: one claim of 100 rows and one statement handing them back. The
    // worker's own schedule is paused (its tick would claim the same rows, oldest due first), and
    // the 100 are due before anything an earlier test left due, so the claim takes exactly them.
    const processor = worker.get(LinkHealthProcessor);
    await processor.worker.pause();
    await t.db.query(
      `UPDATE link_health SET next_at = now() - interval '10 years'
        WHERE link_id IN (SELECT id FROM links WHERE user_id = $1 ORDER BY id LIMIT 100)`,
      [owner.id],
    );
    const store = worker.get(LinkHealthStore);
    started = Date.now();
    const claimed = await store.claim(100, 42, 600).finally(() => processor.worker.resume());
    const claimMs = Date.now() - started;
    expect(claimed.filter((c) => c.userId === owner.id)).toHaveLength(100);
    expect(claimed.every((c) => c.probe)).toBe(true);
    started = Date.now();
    await store.release(
      claimed.map((c) => ({ linkId: c.linkId, lease: 42, nextAt: new Date(Date.now() + 864e5) })),
    );
    const releaseMs = Date.now() - started;
    console.info(
      `link health at scale: ${n} links enrolled in ${enrolMs} ms; claim of 100 in ${claimMs} ms, release in ${releaseMs} ms`,
    );
    expect(enrolMs).toBeLessThan(60_000);
  }, 180_000);
});
