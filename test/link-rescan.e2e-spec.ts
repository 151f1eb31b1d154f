import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { INestApplicationContext } from '@nestjs/common';

import { LinkRescan } from '../apps/worker/src/threat-feeds/link-rescan';
import { ThreatFeedLoader } from '../apps/worker/src/threat-feeds/threat-feed-loader';
import {
  createTestApp,
  createTestWorker,
  createUser,
  DATE_TIME,
  expectError,
  TestApp,
  TestUser,
} from './support/app';
import { addLink, uniq } from './support/links';
import { replicasCaughtUp } from './support/services';
import { eventually } from './support/stats';
import { Receiver } from './support/webhooks';

const MAIN = 'short.test';
const KEY = 'test-lookup-key';

/** One `threatMatches:find` request the stub got. */
interface LookupCall {
  key: string | null;
  urls: string[];
}

/**
 * A stub of the Safe Browsing v4 lookup speaking the real protocol: POST
 * /v4/threatMatches:find?key=… with {client, threatInfo: {threatTypes, platformTypes,
 * threatEntryTypes: ["URL"], threatEntries: [{url}]}} → {matches: [{threatType, platformType,
 * threatEntryType, threat: {url}, cacheDuration}]} or {} when nothing matches. `mode` plays a
 * service that is down (503) or hangs past the client's timeout.
 */
class LookupStub {
  readonly calls: LookupCall[] = [];
  /** url → [threatType, cacheDuration] */
  readonly threats = new Map<string, [string, string]>();
  mode: 'ok' | 'down' | 'hang' = 'ok';
  private server!: Server;
  private readonly hanging: ServerResponse[] = [];
  url = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => this.answer(req, res));
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v4/threatMatches:find`;
  }

  private answer(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://stub');
      if (req.method !== 'POST' || url.pathname !== '/v4/threatMatches:find')
        return void res.writeHead(404).end();
      let body: {
        client?: { clientId?: string; clientVersion?: string };
        threatInfo?: {
          threatTypes?: string[];
          platformTypes?: string[];
          threatEntryTypes?: string[];
          threatEntries?: Array<{ url: string }>;
        };
      };
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        return void res.writeHead(400).end();
      }
      const info = body.threatInfo;
      const entries = info?.threatEntries ?? [];
      // what the real service requires of a request
      if (
        !body.client?.clientId ||
        !body.client.clientVersion ||
        !info?.threatTypes?.length ||
        !info.platformTypes?.length ||
        JSON.stringify(info.threatEntryTypes) !== '["URL"]' ||
        !entries.length ||
        entries.length > 500 ||
        req.headers['content-type'] !== 'application/json'
      )
        return void res.writeHead(400).end('{"error":{"code":400}}');
      this.calls.push({ key: url.searchParams.get('key'), urls: entries.map((e) => e.url) });
      if (this.mode === 'hang') return void this.hanging.push(res);
      if (this.mode === 'down') return void res.writeHead(503).end('{"error":{"code":503}}');
      const matches = entries
        .filter((e) => this.threats.has(e.url))
        .map((e) => ({
          threatType: this.threats.get(e.url)![0],
          platformType: 'ANY_PLATFORM',
          threatEntryType: 'URL',
          threat: { url: e.url },
          cacheDuration: this.threats.get(e.url)![1],
        }));
      res
        .writeHead(200, { 'Content-Type': 'application/json' })
        .end(JSON.stringify(matches.length ? { matches } : {}));
    });
  }

  /** How many calls asked about `url`. */
  asked(url: string): number {
    return this.calls.filter((c) => c.urls.includes(url)).length;
  }

  async close(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/**
 * docs/trust.md, re-scans and the online lookup: a link whose target a threat feed or the lookup
 * flags after it was made answers the 451 warning page on every replica within one refresh, shows
 * `status: "flagged"` and `flag`, fires link.flagged once, and an admin's allow clears it for good;
 * the lookup refuses what it flags on create and update, and never blocks creation when it is down
 * (the destination is re-checked later).
 */
describe('re-scans and the online lookup', () => {
  // a re-scan reads every link of the run's database (other suites' too)
  jest.setTimeout(120_000);
  let a: TestApp;
  /** A second replica sharing Redis and Postgres. */
  let b: TestApp;
  let worker: INestApplicationContext;
  let stub: LookupStub;
  let receiver: Receiver;
  let admin: TestUser;
  let user: TestUser;
  let pro: TestUser;
  let dir: string;
  const tag = uniq('rs').toLowerCase();
  const h = (name: string) => `${tag}-${name}.test`;
  const feedFile = () => join(dir, 'rescan.txt');
  /** The hosts the feed lists (OpenPhish format: one entry a line). */
  const feedHosts = new Set<string>();

  const visit = (app: TestApp, alias: string) =>
    app.http().get(`/${alias}`).set('Host', MAIN).redirects(0);
  const add = (app: TestApp, body: object, u = user) =>
    app.http().post('/api/url/add').set(u.auth).send(body);
  const details = async (id: number, u = user) =>
    (await a.http().get(`/api/url/${id}`).set(u.auth).expect(200)).body.details;
  const allow = (id: number, u = admin) => a.http().post(`/api/admin/url/${id}/allow`).set(u.auth);
  /** Writes the feed with `hosts` added and runs one refresh (load, then the re-scan). */
  const refresh = async (...hosts: string[]) => {
    for (const host of hosts) feedHosts.add(host);
    writeFileSync(feedFile(), `# re-scan test feed\n${[...feedHosts].join('\n')}\n`);
    const loader = worker.get(ThreatFeedLoader);
    // another refresh (the worker's start) may hold the feed's lock: until ours loaded it
    const before = Date.now();
    await eventually(async () => {
      await loader.refresh(true);
      const raw = await a.redis.client.hget(a.redis.key('tf', 'state'), 'rescan');
      const state = raw ? (JSON.parse(raw) as { loadedAt: string | null }) : null;
      return !!state?.loadedAt && Date.parse(state.loadedAt) >= before;
    }, 90_000);
  };
  /**
   * One re-scan pass of the feeds, run here: while another pass holds the lock (the one a refresh
   * starts, or the worker's own), scanFeeds answers null; then it is asked again.
   */
  const scanNow = async () => {
    let result: Awaited<ReturnType<LinkRescan['scanFeeds']>> = null;
    await eventually(async () => (result = await worker.get(LinkRescan).scanFeeds()) !== null);
    return result;
  };
  const flaggedRows = async (linkId: number): Promise<number> =>
    Number(
      (
        await a.db.query(
          `SELECT count(*) AS n FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
            WHERE d.event = 'link.flagged' AND w.user_id = $1 AND (d.data->>'id')::int = $2`,
          [user.id, linkId],
        )
      )[0].n,
    );

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rescan-'));
    stub = new LookupStub();
    await stub.start();
    receiver = await Receiver.start();
    const env = {
      THREAT_FEEDS: `rescan=${feedFile()}`,
      SAFE_BROWSING_URL: stub.url,
      SAFE_BROWSING_KEY: KEY,
      // the stub answers in-process beside two apps: room for a slow machine, well under the
      // 3 s a creation may take while the service hangs
      SAFE_BROWSING_TIMEOUT_MS: '1500',
      // clean answers are not kept: a URL flagged later is seen at the next lookup
      SAFE_BROWSING_CLEAN_SECONDS: '0',
      WEBHOOK_ALLOW_HOSTS: '127.0.0.1',
    };
    writeFileSync(feedFile(), `# re-scan test feed\n${h('seed')}\n`);
    feedHosts.add(h('seed'));
    a = await createTestApp(env);
    b = await createTestApp(env);
    // the worker's scheduled lookup pass is not due: the tests run it when they mean to
    await a.redis.client.set(a.redis.key('rescan', 'lookup', 'at'), String(Date.now()));
    worker = await createTestWorker(env);
    admin = await createUser(a, { admin: true });
    user = await createUser(a);
    pro = await createUser(a, { plan: 'Pro' });
    const hook = await a
      .http()
      .post('/api/webhook/add')
      .set(user.auth)
      .send({ url: receiver.url('/flagged'), events: ['link.flagged'] });
    expect(hook.status).toBe(200);
  });
  afterAll(async () => {
    await worker?.close();
    await a?.close();
    await b?.close();
    await stub?.close();
    await receiver?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  describe('online lookup on create and update', () => {
    it('refuses a URL the lookup flags, on url/add and update, naming the field; the answer is cached', async () => {
      const bad = `https://${h('sb1')}/login`;
      stub.threats.set(bad, ['SOCIAL_ENGINEERING', '300s']);
      for (const app of [a, b])
        expect(expectError(await add(app, { url: bad }), 400)).toBe(
          'url: flagged as phishing by safe-browsing',
        );
      const link = await addLink(a, pro, { url: 'https://example.com/fine' });
      expect(
        expectError(
          await b
            .http()
            .put(`/api/url/${link.id}/update`)
            .set(pro.auth)
            .send({ geotarget: [{ location: 'US', link: bad }] }),
          400,
        ),
      ).toBe('geotarget[0].link: flagged as phishing by safe-browsing');
      // asked once, with the key; then answered from the cache (cacheDuration 300s) on every replica
      expect(stub.asked(bad)).toBe(1);
      expect(stub.calls.find((c) => c.urls.includes(bad))!.key).toBe(KEY);

      const malware = `https://${h('sb2')}/x.exe`;
      stub.threats.set(malware, ['MALWARE', '300s']);
      expect(
        expectError(
          await add(a, { url: 'https://example.com/', expirationredirect: malware }, pro),
          400,
        ),
      ).toBe('expirationredirect: flagged as malware by safe-browsing');
      const [row] = await a.db.query(`SELECT url, geo_targets FROM links WHERE id = $1`, [link.id]);
      expect(row).toEqual({ url: 'https://example.com/fine', geo_targets: null });
    });

    it('runs after the local checks: a URL a feed flags is refused by the feed, without a lookup', async () => {
      await refresh(h('both'));
      const url = `https://${h('both')}/p`;
      stub.threats.set(url, ['MALWARE', '300s']);
      expect(expectError(await add(a, { url }), 400)).toBe('url: flagged as phishing by rescan');
      expect(stub.asked(url)).toBe(0);
    });

    it('follows the answer: a URL no longer flagged once its cacheDuration is over is accepted', async () => {
      const url = `https://${h('sb3')}/brief`;
      stub.threats.set(url, ['SOCIAL_ENGINEERING', '1s']);
      expectError(await add(a, { url }), 400);
      stub.threats.delete(url);
      expectError(await add(b, { url }), 400);
      await new Promise((r) => setTimeout(r, 1200));
      expect((await add(b, { url })).status).toBe(200);
    });

    it('a service down or too slow does not block creation; the later re-check flags the link', async () => {
      const down = `https://${h('down')}/later`;
      stub.mode = 'down';
      const l1 = await addLink(a, user, { url: down });
      stub.mode = 'hang';
      const slow = `https://${h('slow')}/later`;
      const started = Date.now();
      const l2 = await addLink(b, user, { url: slow });
      expect(Date.now() - started).toBeLessThan(3000);
      expect(stub.asked(down)).toBeGreaterThanOrEqual(1);
      expect(stub.asked(slow)).toBeGreaterThanOrEqual(1);
      for (const l of [l1, l2]) expect((await visit(a, l.alias)).status).toBe(302);

      // still down: the re-check keeps them for later
      stub.mode = 'down';
      expect(await worker.get(LinkRescan).recheck()).toBe(0);
      // back, and both are flagged now
      stub.mode = 'ok';
      stub.threats.set(down, ['SOCIAL_ENGINEERING', '300s']);
      stub.threats.set(slow, ['MALWARE', '300s']);
      // (the worker's own minute tick may take part of the work: the outcome is what counts)
      await worker.get(LinkRescan).recheck();
      for (const app of [a, b])
        for (const l of [l1, l2])
          await eventually(async () => (await visit(app, l.alias)).status === 451, 3000, 50);
      expect(await details(l1.id)).toMatchObject({
        status: 'flagged',
        flag: { source: 'safe-browsing', type: 'phishing', date: expect.stringMatching(DATE_TIME) },
      });
      expect((await details(l2.id)).flag).toMatchObject({ type: 'malware' });
      // nothing waits any more
      expect(await a.redis.client.scard(a.redis.key('sb', 'recheck'))).toBe(0);
    });

    it('an import does not ask row by row: its destinations wait for the re-check, which flags them', async () => {
      const url = `https://${h('imported')}/row`;
      stub.threats.set(url, ['SOCIAL_ENGINEERING', '300s']);
      const started = await a
        .http()
        .post('/api/import')
        .set(pro.auth)
        .set('Content-Type', 'text/csv')
        .send(['url', url, 'https://example.com/imported-clean'].join('\n'))
        .expect(200);
      let data = { status: '', created: 0 };
      await eventually(async () => {
        data = (await a.http().get(`/api/import/${started.body.id}`).set(pro.auth)).body.data;
        return data.status === 'done' || data.status === 'failed';
      }, 30_000);
      expect(data).toMatchObject({ status: 'done', created: 2 });
      expect(stub.asked(url)).toBe(0);
      const [row] = await a.db.query(`SELECT id, alias FROM links WHERE url = $1`, [url]);
      await worker.get(LinkRescan).recheck();
      await eventually(async () => (await visit(b, row.alias)).status === 451, 3000, 50);
      expect((await details(row.id, pro)).flag).toMatchObject({ source: 'safe-browsing' });
    });

    it('the scheduled lookup pass flags an existing link the service flags later', async () => {
      const url = `https://${h('sched')}/page`;
      const l = await addLink(a, user, { url });
      expect((await visit(b, l.alias)).status).toBe(302);
      stub.threats.set(url, ['UNWANTED_SOFTWARE', '300s']);
      expect((await worker.get(LinkRescan).scanLookup())!.flagged).toBeGreaterThanOrEqual(1);
      await eventually(async () => (await visit(b, l.alias)).status === 451, 3000, 50);
      expect((await details(l.id)).flag).toMatchObject({
        source: 'safe-browsing',
        type: 'unwanted-software',
      });
    });
  });

  describe('feed re-scans', () => {
    let plain: { id: number; alias: string };
    let rule: { id: number; alias: string };
    let expiry: { id: number; alias: string };
    let deep: { id: number; alias: string };
    let clean: { id: number; alias: string };

    beforeAll(async () => {
      plain = await addLink(a, user, { url: `https://${h('plain')}/a` });
      rule = await addLink(a, pro, {
        url: 'https://example.com/r',
        devicetarget: [{ device: 'iPhone', link: `https://sub.${h('rule')}/ios` }],
      });
      expiry = await addLink(a, user, {
        url: 'https://example.com/e',
        expirationredirect: `https://${h('expiry')}/gone`,
      });
      deep = await addLink(a, pro, {
        url: 'https://example.com/d',
        deeplink: { google: `https://${h('deep')}/app` },
      });
      clean = await addLink(a, user, { url: `https://${h('clean')}/a` });
    });

    it('flags every kind of target of existing links within one refresh, on both replicas', async () => {
      // cached as forwarding on both replicas
      for (const app of [a, b])
        for (const l of [plain, rule, expiry, deep, clean])
          expect((await visit(app, l.alias)).status).toBe(302);
      await refresh(h('plain'), h('rule'), h('expiry'), h('deep'));
      for (const app of [a, b]) {
        for (const l of [plain, rule, expiry, deep])
          await eventually(async () => (await visit(app, l.alias)).status === 451, 2000, 50);
        expect((await visit(app, clean.alias)).status).toBe(302);
      }
      const page = await visit(b, plain.alias);
      expect(page.headers['content-type']).toMatch(/^text\/html/);
      expect(page.headers.location).toBeUndefined();
      expect(page.text).toContain('harmful');
      expect(page.text).not.toContain(h('plain'));
    });

    it('shows status "flagged" and flag in the details and the list; the owner alone sees them', async () => {
      const d = await details(plain.id);
      expect(d.status).toBe('flagged');
      expect(d.flag).toEqual({
        source: 'rescan',
        type: 'phishing',
        date: expect.stringMatching(DATE_TIME),
      });
      expect((await details(clean.id)).flag).toBeNull();
      expect((await details(clean.id)).status).toBe('public');
      // the flag was written by the worker, not the owner: a list may come from a replica, which
      // shows it once it has replayed the write
      await replicasCaughtUp();
      const list = await a.http().get('/api/urls').set(user.auth).query({ limit: 100 }).expect(200);
      const item = list.body.data.urls.find((u: { id: number }) => u.id === plain.id);
      expect(item).toMatchObject({ status: 'flagged', flag: d.flag });
      // another user: the link is not theirs (404), as every link route
      expectError(await a.http().get(`/api/url/${plain.id}`).set(pro.auth), 404);
    });

    it('fires link.flagged once, however many refreshes see the target', async () => {
      expect(await flaggedRows(plain.id)).toBe(1);
      await refresh();
      expect(await flaggedRows(plain.id)).toBe(1);
      await eventually(
        async () => receiver.on('/flagged').some((r) => r.body.data.id === plain.id),
        15_000,
      );
      const got = receiver.on('/flagged').filter((r) => r.body.data.id === plain.id);
      expect(got).toHaveLength(1);
      expect(got[0].body.event).toBe('link.flagged');
      expect(got[0].body.data).toEqual({
        id: plain.id,
        alias: plain.alias,
        shorturl: `http://short.test/${plain.alias}`,
        longurl: `https://${h('plain')}/a`,
        target: `https://${h('plain')}/a`,
        source: 'rescan',
        type: 'phishing',
        date: expect.stringMatching(DATE_TIME),
      });
    });

    it('POST /api/admin/url/:id/allow: admins only, 404 for an unknown id', async () => {
      expectError(await allow(plain.id, user), 403);
      expectError(await allow(plain.id, pro), 403);
      expectError(await a.http().post(`/api/admin/url/${plain.id}/allow`), 401);
      expectError(await allow(2147483000), 404);
      expect((await visit(a, plain.alias)).status).toBe(451);
    });

    it('the allow clears the flag for good: forwarding on both replicas, never flagged again', async () => {
      const res = await allow(plain.id).expect(200);
      expect(res.body).toEqual({ error: 0, message: 'The link has been allowed.' });
      for (const app of [a, b])
        await eventually(async () => (await visit(app, plain.alias)).status === 302, 2000, 50);
      const d = await details(plain.id);
      expect(d).toMatchObject({ status: 'public', flag: null });

      await refresh(h('plain'));
      expect(await scanNow()).toMatchObject({ flagged: 0 });
      for (const app of [a, b]) expect((await visit(app, plain.alias)).status).toBe(302);
      expect((await details(plain.id)).flag).toBeNull();
      expect(await flaggedRows(plain.id)).toBe(1);
      // a second allow has nothing to clear
      expect((await allow(plain.id).expect(200)).body.message).toBe(
        'The link has no flag to clear.',
      );
      // per link: another link to the same target is flagged as usual
      const other = await a.db.query(
        `INSERT INTO links (user_id, alias, url) VALUES ($1, $2, $3) RETURNING id`,
        [user.id, uniq('same').slice(0, 30), `https://${h('plain')}/a`],
      );
      await scanNow();
      expect((await details(other[0].id)).status).toBe('flagged');
    });

    it('a target the owner replaces takes its flag with it', async () => {
      expect((await visit(a, expiry.alias)).status).toBe(451);
      await a
        .http()
        .put(`/api/url/${expiry.id}/update`)
        .set(user.auth)
        .send({ expirationredirect: null })
        .expect(200);
      for (const app of [a, b])
        await eventually(async () => (await visit(app, expiry.alias)).status === 302, 2000, 50);
      expect(await details(expiry.id)).toMatchObject({ status: 'public', flag: null });
    });
  });
});
