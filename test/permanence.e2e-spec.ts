import { mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { INestApplicationContext, Logger } from '@nestjs/common';
import request from 'supertest';

import { runMigrations } from '@app/database';
import { Blocklist, snapshotPath } from '@app/links';
import { VisitRecorder } from '@app/stats';

import { LinkSnapshot } from '../apps/api/src/permanence/link-snapshot';
import { OutageVisits } from '../apps/api/src/permanence/outage-visits';
import { LinkSnapshotWriter } from '../apps/worker/src/permanence/link-snapshot-writer';
import { createTestApp, createTestWorker, createUser, TestApp, TestUser } from './support/app';
import { insertDomain } from './support/links';
import { AppProcess, readyLine, startBuilt, stop } from './support/process';
import { TestPostgres, TestRedis } from './support/services';
import { BROWSER_UA, eventually, foldStats, readStats, statsKeys } from './support/stats';

const LINKS = 1000;
/** What every visit of the suite sends: a counted browser, a German address, French first. */
const VISITOR = {
  'user-agent': BROWSER_UA,
  'x-forwarded-for': '193.99.144.80',
  'accept-language': 'fr,en;q=0.5',
};

interface Answer {
  status: number;
  location: string | undefined;
}

/**
 * Short links that keep working while Postgres and Redis are both down (docs/link-permanence.md):
 * the suite runs its own Postgres and Redis, writes one snapshot with the worker, stops both
 * stores, and asks an api process that never answered a short link before.
 */
describe('link permanence: a store outage', () => {
  let pg: TestPostgres;
  let redis: TestRedis;
  let storage: string;
  let env: Record<string, string>;
  let a: TestApp | undefined;
  let b: TestApp | undefined;
  let c: TestApp | undefined;
  let worker: INestApplicationContext | undefined;
  /** The suite's links (test 1), as every api answered them with the stores up. */
  let rows: Array<{ id: number; alias: string; n: number; domain_id: number | null }>;
  let links: Array<{ alias: string; host: string }>;
  let before: Answer[];
  let owner: TestUser;
  let tag: string;

  beforeAll(async () => {
    pg = await TestPostgres.start();
    const url = pg.url('linkmgmt_permanence');
    await runMigrations(url);
    redis = await TestRedis.start();
    storage = mkdtempSync(join(tmpdir(), 'lm-permanence-'));
    env = {
      DATABASE_URL: url,
      DATABASE_REPLICA_URLS: '',
      REDIS_URL: redis.url,
      REDIS_CLUSTER_NODES: '',
      REDIS_SENTINELS: '',
      STORAGE_DIR: storage,
      // the suite asks for its one snapshot itself
      SNAPSHOT_SECONDS: '3600',
    };
  }, 60_000);

  /** Api processes spawned from the build (test 2). */
  const spawned: AppProcess[] = [];

  afterAll(async () => {
    for (const p of spawned) await stop(p.child);
    await redis?.start().catch(() => undefined);
    await pg?.start().catch(() => undefined);
    await worker?.close().catch(() => undefined);
    await c?.close().catch(() => undefined);
    await b?.close().catch(() => undefined);
    await a?.close().catch(() => undefined);
    await redis?.stop();
    await pg?.destroy();
    rmSync(storage, { recursive: true, force: true });
  }, 60_000);

  /** Every alias's answer through `t` (or the api process at that address), 25 requests at a time. */
  async function answers(
    t: TestApp | string,
    links: Array<{ alias: string; host: string }>,
  ): Promise<Answer[]> {
    const get = (path: string) =>
      typeof t === 'string' ? request(t).get(path) : t.http().get(path);
    const out: Answer[] = new Array(links.length);
    for (let i = 0; i < links.length; i += 25)
      await Promise.all(
        links.slice(i, i + 25).map(async ({ alias, host }, j) => {
          const res = await get(`/${alias}`).set(VISITOR).set('Host', host);
          out[i + j] = { status: res.status, location: res.headers.location };
        }),
      );
    return out;
  }

  it('answers every short link from the snapshot, refuses a tampered one, and counts the visits when the stores are back', async () => {
    a = await createTestApp(env);
    const user = (owner = await createUser(a));
    const brand = await insertDomain(a, user.id, {
      root: 'https://brand-home.example/',
      notFound: 'https://brand-404.example/',
    });
    tag = Date.now().toString(36);
    // 1 000 links: plain ones, targeting and parameters, expired (with and without an
    // expiration redirect), expiring later, on the branded domain, disabled, blocked, limited
    rows = await a.db.query(
      `INSERT INTO links (user_id, kind, alias, url, title, domain_id, geo_targets, language_targets,
                            device_targets, parameters, expires_at, expiration_redirect, disabled_at, click_limit)
         SELECT $1, 'link', 'p' || n || '_' || $2,
                CASE WHEN n % 100 = 8 THEN 'https://blocked.example/' || n ELSE 'https://dest.example/' || n END,
                'link ' || n,
                CASE WHEN n % 10 = 5 THEN $3::int END,
                CASE WHEN n % 10 = 1 THEN jsonb_build_array(jsonb_build_object('location', 'DE', 'link', 'https://de.example/' || n)) END,
                CASE WHEN n % 10 IN (1, 7) THEN jsonb_build_array(jsonb_build_object('language', 'fr', 'link', 'https://fr.example/' || n)) END,
                CASE WHEN n % 10 = 2 THEN jsonb_build_array(jsonb_build_object('device', 'iphone', 'link', 'https://iphone.example/' || n)) END,
                CASE WHEN n % 10 IN (2, 4) THEN jsonb_build_array(jsonb_build_object('name', 'utm_source', 'value', 'snap' || n)) END,
                CASE WHEN n % 10 IN (3, 6) THEN now() - interval '1 day'
                     WHEN n % 10 = 4 THEN now() + interval '30 days' END,
                CASE WHEN n % 10 = 3 THEN 'https://expired.example/' || n END,
                CASE WHEN n % 100 = 17 THEN now() END,
                CASE WHEN n % 100 IN (9, 19) THEN 2 END
           FROM generate_series(1, ${LINKS}) AS n
         RETURNING id, alias, substring(alias from 2 for position('_' in alias) - 2)::int AS n, domain_id`,
      [user.id, tag, brand.id],
    );
    rows.sort((x, y) => x.n - y.n);
    expect(rows).toHaveLength(LINKS);
    links = rows.map((r) => ({
      alias: r.alias,
      host: r.domain_id ? brand.host : 'short.test',
    }));
    await a.db.query(`INSERT INTO blocklist (entry) VALUES ('blocked.example')`);
    await a.app.get(Blocklist).changed();
    // link 9 (and 109, …) is used up: its counter at its limit
    for (const r of rows.filter((r) => r.n % 100 === 9))
      await a.redis.client.set(a.redis.key('clicklimit', r.id), 2);

    before = await answers(a, links);
    const statusOf = (n: number) => before[n - 1].status;
    expect(statusOf(17)).toBe(451); // disabled
    expect(statusOf(8)).toBe(451); // blocked
    expect(statusOf(6)).toBe(410); // expired
    expect(statusOf(9)).toBe(410); // used up
    expect(before[2]).toEqual({ status: 302, location: 'https://expired.example/3' });
    expect(before[0]).toEqual({ status: 302, location: 'https://de.example/1' });
    expect(before[1]).toEqual({ status: 302, location: 'https://dest.example/2?utm_source=snap2' });
    expect(before[6].location).toBe('https://fr.example/7');
    expect(before[4].location).toBe('https://dest.example/5');
    const redirected = before.filter((x) => x.status === 302).length;
    expect(redirected).toBeGreaterThan(800);
    // the visits so far, folded: the outage's are counted on top of them
    await foldStats(a);
    const sample = [rows[0], rows[1], rows[3], rows[4], rows[9]];
    const clicksBefore = await Promise.all(
      sample.map(async (r) => (await readStats(a!, r.id)).clicks),
    );
    expect(clicksBefore).toEqual([1, 1, 1, 1, 1]);

    // one snapshot, by the worker
    worker = await createTestWorker(env);
    const written = await worker.get(LinkSnapshotWriter).writeNow();
    expect(written).toMatchObject({ links: LINKS, hosts: 1 });
    await worker.close();
    worker = undefined;
    // the entry goes after the snapshot: the new process's own list lacks it, the snapshot's
    // blocked state still answers 451
    await a.db.query(`DELETE FROM blocklist`);
    await a.close();
    a = undefined;

    // an api process that never answered a short link, with the snapshot loaded in the background
    b = await createTestApp(env);
    const snapshot = b.app.get(LinkSnapshot);
    await eventually(async () => snapshot.links === LINKS, 15_000);
    const visits = b.app.get(OutageVisits);

    await redis.stop();
    await pg.stop();
    await eventually(async () => !b!.redis.ready, 10_000);

    const during = await answers(b, links);
    for (let i = 0; i < LINKS; i++)
      expect({ n: i + 1, ...during[i] }).toEqual({ n: i + 1, ...before[i] });
    // visits are held for Redis: one per redirect to the destination (the expiration redirects
    // and the 4xx pages count none)
    const delivered = before.filter(
      (x) => x.status === 302 && !x.location?.startsWith('https://expired.example/'),
    ).length;
    expect(visits.size).toBe(delivered);
    // the branded domain's own redirects; an alias the snapshot does not know may be newer: 503
    const root = await b.http().get('/').set('Host', brand.host);
    expect({ status: root.status, location: root.headers.location }).toEqual({
      status: 302,
      location: 'https://brand-home.example/',
    });
    const lost = await b.http().get('/x/y').set('Host', brand.host);
    expect(lost.headers.location).toBe('https://brand-404.example/');
    expect((await b.http().get(`/unknown_${tag}`).set(VISITOR)).status).toBe(503);

    // a snapshot with one byte changed is refused (logged) and the loaded one stays in use
    const errors = jest.spyOn(Logger.prototype, 'error');
    const good = readFileSync(snapshot.path);
    const tampered = Buffer.from(good);
    const at = good.indexOf('https://dest.example/10"');
    tampered[at + 8] = 'D'.charCodeAt(0);
    writeFileSync(`${snapshot.path}.t`, tampered);
    renameSync(`${snapshot.path}.t`, snapshot.path);
    expect(await snapshot.reload()).toBe(false);
    expect(errors.mock.calls.map((c) => String(c[0]))).toContainEqual(
      expect.stringMatching(/^link snapshot refused \(bad signature\)/),
    );
    errors.mockRestore();
    const ten = await b.http().get(`/${rows[9].alias}`).set(VISITOR);
    expect(ten.headers.location).toBe('https://dest.example/10');

    // the stores come back: the held visits go through the recorder, the fold counts them
    await pg.start();
    await redis.start();
    await eventually(async () => b!.redis.ready && visits.size === 0, 20_000, 200);
    const bApp = b;
    let last: number[] = [];
    await eventually(
      async () => {
        await foldStats(bApp).catch(() => undefined);
        const now = await Promise.all(
          sample.map(async (r) => (await readStats(bApp, r.id)).clicks),
        );
        last = now;
        // link 10 was visited twice during the outage (once more after the tampered file)
        return now.every((c, i) => c === clicksBefore[i] + (sample[i] === rows[9] ? 2 : 1));
      },
      20_000,
      250,
    ).catch((err: Error) => {
      throw new Error(
        `${err.message}: clicks ${JSON.stringify(last)}, before ${JSON.stringify(clicksBefore)}`,
      );
    });
    // and short links are answered by Postgres again (a link the snapshot does not have)
    const [fresh] = await bApp.db.query(
      `INSERT INTO links (user_id, kind, alias, url, title) VALUES ($1, 'link', $2, 'https://new.example/', '') RETURNING alias`,
      [user.id, `after_${tag}`],
    );
    const again = await bApp.http().get(`/${fresh.alias}`).set(VISITOR);
    expect({ status: again.status, location: again.headers.location }).toEqual({
      status: 302,
      location: 'https://new.example/',
    });
  }, 180_000);
  it('an api process that starts while both stores are down listens at once, answers from the snapshot, and becomes the full api when they return', async () => {
    const t = b as TestApp;
    // a fresh snapshot (test 1 left a tampered file), the blocklist entry in it again; the new
    // process cannot read the list from Postgres: its 451s come from the snapshot
    await t.db.query(`INSERT INTO blocklist (entry) VALUES ('blocked.example')`);
    // the used-up counters again (Redis came back empty)
    for (const r of rows.filter((r) => r.n % 100 === 9))
      await t.redis.client.set(t.redis.key('clicklimit', r.id), 2);
    worker = await createTestWorker(env);
    const written = await worker.get(LinkSnapshotWriter).writeNow();
    expect(written).toMatchObject({ links: LINKS + 1, hosts: 1 });
    await worker.close();
    worker = undefined;
    await t.db.query(`DELETE FROM blocklist`);
    await foldStats(t);
    const sample = [rows[0], rows[1], rows[3], rows[4], rows[9]];
    const clicksBefore = await Promise.all(
      sample.map(async (r) => (await readStats(t, r.id)).clicks),
    );
    await t.close();
    b = undefined;
    await redis.stop();
    await pg.stop();

    // a process started now: it listens while Postgres is down (the starting front)
    const api = await startBuilt('api', env);
    spawned.push(api);
    await readyLine(api.child, /api listening on \d+ \(starting/, 'api', 30_000);
    const http = () => request(api.url);
    // link 13: the expiration redirect (no visit counted); answered once the snapshot is loaded
    const probe = links[12];
    const probeAnswer = async () => {
      const res = await http().get(`/${probe.alias}`).set(VISITOR).set('Host', probe.host);
      return { status: res.status, location: res.headers.location as string | undefined };
    };
    await eventually(async () => (await probeAnswer()).status === 302, 15_000, 200);

    const during = await answers(api.url, links);
    for (let i = 0; i < LINKS; i++)
      expect({ n: i + 1, ...during[i] }).toEqual({ n: i + 1, ...before[i] });
    const root = await http().get('/').set('Host', links[4].host);
    expect(root.headers.location).toBe('https://brand-home.example/');
    // the API waits for the database; liveness says the process is up, readiness that it is not ready
    const list = await http().get('/api/urls').set(owner.auth);
    expect({ status: list.status, error: list.body.error }).toEqual({ status: 503, error: 1 });
    expect(typeof list.body.message).toBe('string');
    expect((await http().get('/health')).status).toBe(200);
    const ready = await http().get('/health/ready');
    expect({ status: ready.status, error: ready.body.error }).toEqual({ status: 503, error: 1 });
    // QR codes and the other registered routes come with the full api
    expect((await http().get('/q/abc')).status).toBe(503);

    // a tampered snapshot: refused, the loaded one stays in use
    const file = snapshotPath(storage);
    const good = readFileSync(file);
    const tampered = Buffer.from(good);
    const at = good.indexOf('https://dest.example/10"');
    tampered[at + 8] = 'D'.charCodeAt(0);
    writeFileSync(`${file}.t`, tampered);
    renameSync(`${file}.t`, file);
    await eventually(
      async () => api.output().includes('link snapshot refused (bad signature)'),
      10_000,
      200,
    );
    const ten = await http().get(`/${rows[9].alias}`).set(VISITOR);
    expect({ status: ten.status, location: ten.headers.location }).toEqual({
      status: 302,
      location: 'https://dest.example/10',
    });
    // and a process that starts with only the tampered file answers none of its links
    const second = await startBuilt('api', env);
    spawned.push(second);
    await readyLine(second.child, /api listening on \d+ \(starting/, 'second api', 30_000);
    await eventually(
      async () => second.output().includes('link snapshot refused (bad signature)'),
      10_000,
      200,
    );
    const refused = await request(second.url).get(`/${rows[9].alias}`).set(VISITOR);
    expect({ status: refused.status, location: refused.headers.location }).toEqual({
      status: 503,
      location: undefined,
    });
    await stop(second.child);

    // the stores come back: the full api is built and swapped in on the listening server; a
    // short link asked all along is answered every time, never refused
    const seen: string[] = [];
    let probing = true;
    const asking = (async () => {
      while (probing) {
        const answer = await probeAnswer().catch((err: Error) => ({
          status: 0,
          location: err.message,
        }));
        seen.push(`${answer.status} ${answer.location}`);
        await new Promise((r) => setTimeout(r, 25));
      }
    })();
    await pg.start();
    await redis.start();
    await eventually(async () => (await http().get('/health/ready')).status === 200, 60_000, 250);
    probing = false;
    await asking;
    expect(new Set(seen)).toEqual(new Set([`302 ${before[12].location}`]));
    expect(api.output()).toContain('api built');
    expect((await http().get('/api/urls').set(owner.auth)).status).toBe(200);
    // a link made now is not in the snapshot: answered by Postgres
    c = await createTestApp(env);
    const [fresh] = await c.db.query(
      `INSERT INTO links (user_id, kind, alias, url, title) VALUES ($1, 'link', $2, 'https://newer.example/', '') RETURNING alias`,
      [owner.id, `newer_${tag}`],
    );
    const newer = await http().get(`/${fresh.alias}`).set(VISITOR);
    expect(newer.headers.location).toBe('https://newer.example/');

    // the visits of the starting phase are counted (link 10 twice: the sweep and after the tamper)
    const cApp = c;
    let last: number[] = [];
    await eventually(
      async () => {
        await foldStats(cApp).catch(() => undefined);
        last = await Promise.all(sample.map(async (r) => (await readStats(cApp, r.id)).clicks));
        return last.every((n, i) => n === clicksBefore[i] + (sample[i] === rows[9] ? 2 : 1));
      },
      30_000,
      250,
    ).catch((err: Error) => {
      throw new Error(
        `${err.message}: clicks ${JSON.stringify(last)}, before ${JSON.stringify(clicksBefore)}`,
      );
    });
  }, 240_000);
  it('visits held during an outage count on the day and hour they were made, however late they are replayed', async () => {
    const d = (c ??= await createTestApp(env));
    // a user whose clicks cap the recorder does not know yet (its visits take the exact path,
    // one call each), and an admin (no cap) whose cap it knows (visits logged, flushed together)
    const user = await createUser(d);
    const admin = await createUser(d, { admin: true });
    const suffix = Date.now().toString(36);
    const [exact, logged, primer] = await d.db.query(
      `INSERT INTO links (user_id, kind, alias, url, title)
       VALUES ($1, 'link', $3, 'https://held.example/1', ''), ($2, 'link', $4, 'https://held.example/2', ''),
              ($2, 'link', $5, 'https://held.example/3', '')
       RETURNING id, user_id`,
      [user.id, admin.id, `held1_${suffix}`, `held2_${suffix}`, `held3_${suffix}`],
    );
    const visits = d.app.get(OutageVisits);
    const recorder = d.app.get(VisitRecorder);
    const visit = (link: { id: number; user_id: number }, ip: string) => ({
      linkId: link.id,
      userId: link.user_id,
      method: 'GET',
      ip,
      userAgent: BROWSER_UA,
      referer: undefined,
    });
    // one visit made two days ago at 10:15 UTC (held since), one made now
    const old = new Date();
    old.setUTCDate(old.getUTCDate() - 2);
    old.setUTCHours(10, 15, 0, 0);
    const holdAndReplay = async (link: { id: number; user_id: number }): Promise<number> => {
      visits.keep({ ...visit(link, '198.51.100.7'), at: old.getTime() });
      const now = Date.now();
      visits.keep(visit(link, '198.51.100.8'));
      await eventually(async () => visits.size === 0, 10_000, 100);
      return now;
    };
    const exactAt = await holdAndReplay(exact);
    await eventually(
      async () => (await d.redis.client.hlen(statsKeys(d).pending(exact.id))) > 0,
      5_000,
    );
    await recorder.recordNow(visit(primer, '198.51.100.9'));
    const loggedAt = await holdAndReplay(logged);
    await recorder.flush();
    await foldStats(d);
    const iso = (ms: number) => new Date(ms).toISOString();
    for (const [linkId, now] of [
      [exact.id as number, exactAt],
      [logged.id as number, loggedAt],
    ]) {
      const daily = await d.db.query(
        `SELECT to_char(day, 'YYYY-MM-DD') AS day, clicks::int FROM link_stats_daily WHERE link_id = $1 ORDER BY day`,
        [linkId],
      );
      const hourly = await d.db.query(
        `SELECT to_char(hour, 'YYYY-MM-DD"T"HH24') AS hour, clicks::int FROM link_stats_hourly WHERE link_id = $1 ORDER BY hour`,
        [linkId],
      );
      expect({ linkId, daily, hourly }).toEqual({
        linkId,
        daily: [
          { day: iso(old.getTime()).slice(0, 10), clicks: 1 },
          { day: iso(now).slice(0, 10), clicks: 1 },
        ],
        hourly: [
          { hour: iso(old.getTime()).slice(0, 13), clicks: 1 },
          { hour: iso(now).slice(0, 13), clicks: 1 },
        ],
      });
    }
  });
});
