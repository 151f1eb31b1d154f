/**
 * `npm run bench:scale`: the same operations against a small database and a large one, in one run,
 * to show which costs grow with the data. The built api runs pinned to core 0 (LINK_CACHE_SIZE=0:
 * no in-process cache), wrk pinned to core 1 (its CPU is reported: the generator's headroom).
 *
 *   small   BENCH_SMALL_LINKS links (default 10 000)
 *   large   BENCH_LINKS links (default 10 000 000)
 *
 * In each, one user ("big") owns the same share as BENCH_BIG_USER_LINKS of BENCH_LINKS (default
 * 1 000 000: 10 %), but at least 15 000 links, so that page 1 000 exists at both scales (the small
 * database then holds 9 000 other links beside the big user's 15 000), and BENCH_STATS_LINKS of
 * the links (default 10 000, the big user's newest) have a year of daily statistics. The links are
 * written with COPY (the search indexes built after it, as a bulk load does), "garden" is in one
 * title in (the big user's links / 100), so a search of the big user finds ~100 at both scales,
 * and the database is vacuumed and analyzed.
 * Both databases are seeded first, each with its api running (pinned to core 0; the one not
 * measured is stopped, SIGSTOP, during the other's runs), then a CHECKPOINT and a `sync` write
 * the seeds out. Then BENCH_ROUNDS rounds (default 5) in each of which every operation runs at
 * both scales one after the other, the order turned every round
 * (BENCH_SECONDS per time-bound run, default 10):
 *
 *   url/add             POST /api/url/add, 10 clients, BENCH_ADDS creations (default 6 000:
 *                       a few seconds, so that its p99 is not that of a second's 20 slowest)
 *   cold redirect       GET /<alias> of 3 000 aliases never asked before (not in Redis, no LRU;
 *                       other aliases each round), 50 clients, browsers' visits (bench:redirect's
 *                       mix: each recorded)
 *   list page 1         GET /api/urls?limit=15&page=1 of the big user
 *   list page 1000      GET /api/urls?limit=15&page=1000
 *   list by clicks      GET /api/urls?limit=15&order=click, page 1 and page 1000
 *   search              GET /api/urls?q=garden
 *   365-day statistics  GET /api/url/:id/stats?from=…&to=… (a year) of the links with statistics
 *
 * List runs use 4 clients of the one user (LIST_QUERIES_PER_USER=4 for the run: the default 2 would
 * refuse half of them with 429). Reported: every run, then each operation's medians over the
 * rounds at both scales (req/s, p50, p99, the api's CPU per request), the median of the rounds'
 * large/small ratios of p50 and p99, wrk's CPU, then the goal's figures: the p50, p99 and p99.9 of
 * all the rounds' requests together at each scale (pooledPercentile) and their ratios (goal ≤ 1.3
 * for p50 and p99). A 10 s run's p99 is its few dozen slowest requests, which one pause of the
 * api's collector, of Postgres or of the VM decides; pooled, it is that of five times the requests
 * (docs/performance.md#scale). After each round's operations, at each scale:
 *
 *   fold                what the round recorded (the cold redirects: a visit to each of 3 000
 *                       links, the fold's costliest shape) folded by the scale's own worker
 *                       (bench/lib/fold-child.ts) on core 0, the api idle: its CPU and the
 *                       stores' a visit, and what one worker core folds against what one api core
 *                       records with those redirects (goal ≥ 2)
 *   export              GET /api/urls/export of the big user (15 000 or 1 000 000 rows): rows a
 *                       second, the api's and the stores' CPU a row
 *
 * Last, Postgres's size per million links, and the statistics tables' growth per million visits
 * folded. BENCH_KEEP=1 keeps both databases and their Redis keys (for EXPLAIN).
 */
import { ChildProcess, execFileSync } from 'node:child_process';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';

import { Client } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';

import { runMigrations } from '../libs/database/src/data-source';
import {
  checkHeadroom,
  ensureWrk,
  HEADER,
  line,
  median,
  medianOf,
  pooledPercentile,
  processCpuUs,
  RunResult,
  runWrk,
  SERVER_CORE,
  spawnApi,
  stop,
  storesCpuUs,
  storesSince,
  waitHealthy,
  WrkRequest,
} from './lib/harness';
import { FoldRun, foldChildRun, startFoldChild } from './lib/fold-child';
import { adminClient, createUsers, freePort, removeRun, RUN, runBench } from './lib/run';
import { visitorHeaders } from './lib/visitors';

const LINKS = Number(process.env.BENCH_LINKS ?? 10_000_000);
const BIG = Number(process.env.BENCH_BIG_USER_LINKS ?? 1_000_000);
const SMALL = Number(process.env.BENCH_SMALL_LINKS ?? 10_000);
const STATS_LINKS = Number(process.env.BENCH_STATS_LINKS ?? 10_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const ADDS = Number(process.env.BENCH_ADDS ?? 6000);
/** Each pooled p50 and p99 at the large scale within this factor of the small scale's. */
const GOAL = 1.3;
/** The fold: what one worker core folds a second, at least this many times what one api core records. */
const FOLD_GOAL = 2;
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const ADMIN_KEY = `adminscalekey${process.pid}`.padEnd(40, 'x');
/** Links of each filler user (everyone but the big user). */
const PER_FILLER = 1000;
/** Aliases never asked for, per round and scale: each round's cold redirects read links no run has read. */
const COLD = 3000;
/** Links the big user owns at least, at each scale: page 1 000 of 15 is there to read (and full). */
const DEEP = 1000 * 15;
/** Redirects of other aliases before the measured runs (the api's code compiled). */
const WARM = 500;

interface Scale {
  name: string;
  links: number;
  big: number;
  url: string;
  prefix: string;
}

/** Lua: counts answers by status (reported when a run has errors). */
const TALLY_STATUS = 'local k = tostring(status); tally[k] = (tally[k] or 0) + 1';

const WORDS = [
  'spring',
  'sale',
  'docs',
  'news',
  'offer',
  'blog',
  'video',
  'shop',
  'event',
  'press',
];

/**
 * One title in how many has "garden": the big user gets the same ~100 matches at each scale, so
 * that the search answers the same at both and only the data around it grows.
 */
function gardenPeriod(s: Scale): number {
  return Math.max(10, Math.round(s.big / 100));
}

/** The `links` rows of a scale, as COPY text: (user_id, alias, url, title), the big user's first. */
function* linkRows(s: Scale, bigUser: number, firstFiller: number): Generator<string> {
  let chunk = '';
  const gardenEvery = gardenPeriod(s);
  for (let i = 0; i < s.links; i++) {
    const user = i < s.big ? bigUser : firstFiller + Math.floor((i - s.big) / PER_FILLER);
    const code = i.toString(36);
    const word = WORDS[i % WORDS.length];
    const title =
      i % gardenEvery === 5 ? `Our garden ${code}` : `${word} ${code} ${WORDS[(i >> 3) % 10]}`;
    chunk += `${user}\tsc${code}\thttps://host${i % 997}.example.com/${word}/${code}?utm_source=bench&id=${i}\t${title}\n`;
    if (chunk.length > 1 << 16) {
      yield chunk;
      chunk = '';
    }
  }
  if (chunk) yield chunk;
}

/** Seeds a scale's database: users, links (COPY), a year of statistics; answers the big user's key and ids. */
async function seed(s: Scale, base: string) {
  const db = new Client({ connectionString: s.url });
  await db.connect();
  try {
    const [pro] = (await db.query(`SELECT id FROM plans WHERE name = 'Pro'`)).rows;
    const api = adminClient(base, ADMIN_KEY);
    const [bigKey, adderKey] = await createUsers(
      api,
      `scale${s.prefix}`,
      2,
      pro.id,
      'scale-pass-1',
    );
    const { rows: users } = await db.query(
      `SELECT id FROM users WHERE username LIKE $1 ORDER BY username`,
      [`scale${s.prefix}u%`],
    );
    const bigUser = users[0].id as number;
    const fillers = Math.ceil((s.links - s.big) / PER_FILLER);
    const { rows: filler } = await db.query(
      `INSERT INTO users (email, username, password_hash, plan_id, api_key_hash, api_key_enc)
       SELECT 'f' || g || '@scale.bench', 'f' || g, 'x', $1, md5('f' || g) || md5('g' || g), 'x'
         FROM generate_series(1, $2::int) g RETURNING id`,
      [pro.id, fillers],
    );
    const firstFiller = Math.min(...filler.map((r: { id: number }) => r.id));
    const t0 = performance.now();
    // the GIN (search) indexes of links are built after the COPY, as a bulk load does
    const { rows: gin } = await db.query(
      `SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'links' AND indexdef LIKE '% USING gin %'`,
    );
    for (const g of gin) await db.query(`DROP INDEX ${g.indexname}`);
    const copy = db.query(copyFrom(`COPY links (user_id, alias, url, title) FROM STDIN`));
    await pipeline(Readable.from(linkRows(s, bigUser, firstFiller)), copy);
    for (const g of gin) await db.query(g.indexdef);
    // a year of daily statistics for STATS_LINKS links: the big user's newest, then others
    const { rows: statIds } = await db.query(
      `(SELECT id FROM links WHERE user_id = $1 ORDER BY id DESC LIMIT $2)
       UNION ALL
       (SELECT id FROM links WHERE user_id <> $1 ORDER BY id DESC LIMIT GREATEST(0, $2 - $3))`,
      [bigUser, STATS_LINKS, s.big],
    );
    const ids = statIds.map((r: { id: number }) => r.id);
    await db.query(
      `INSERT INTO link_stats_daily (link_id, day, clicks, uniques)
       SELECT l, d::date, 1 + (l + extract(doy FROM d)::int) % 50, 1 + (l + extract(doy FROM d)::int) % 20
         FROM unnest($1::int[]) l, generate_series(current_date - 364, current_date, interval '1 day') d`,
      [ids],
    );
    await db.query(
      `INSERT INTO link_stats_total (link_id, clicks, uniques)
       SELECT link_id, sum(clicks), sum(uniques) FROM link_stats_daily GROUP BY link_id`,
    );
    await db.query(`VACUUM ANALYZE`);
    const seconds = (performance.now() - t0) / 1000;
    // aliases never asked for: distinct random rows of the COPY (alias sc<i in base 36>: 3 characters or more, as aliases are)
    const picked = new Set<number>();
    while (picked.size < Math.min(COLD * ROUNDS + WARM, s.links / 2))
      picked.add(Math.floor(Math.random() * s.links));
    const aliases = [...picked].map((i) => `sc${i.toString(36)}`);
    const [size] = (
      await db.query(
        `SELECT pg_database_size(current_database()) AS db, pg_total_relation_size('links') AS links,
                pg_total_relation_size('link_stats_daily') AS daily,
                (SELECT sum(clicks) FROM link_stats_total) AS visits`,
      )
    ).rows;
    return {
      bigKey,
      adderKey,
      statIds: ids.slice(0, Math.min(100, s.big)) as number[],
      warm: aliases.slice(0, WARM),
      cold: aliases.slice(WARM),
      seconds,
      size: {
        db: Number(size.db),
        links: Number(size.links),
        daily: Number(size.daily),
        visits: Number(size.visits),
      },
    };
  } finally {
    await db.end();
  }
}

interface Op {
  name: string;
  /** One run of the operation in round `round` (1…ROUNDS). */
  run: (base: string, pids: number[], round: number) => Promise<RunResult>;
}

function ops(seeded: Awaited<ReturnType<typeof seed>>): Op[] {
  const bigAuth = { Authorization: `Bearer ${seeded.bigKey}` };
  const day = (offset: number) =>
    new Date(Date.now() - offset * 86_400_000).toISOString().slice(0, 10);
  const list = (name: string, path: string): Op => ({
    name,
    run: (url, serverPids) =>
      runWrk({
        url,
        connections: 4,
        seconds: SECONDS,
        script: {
          headers: bigAuth,
          requests: [{ path }],
          onResponse: TALLY_STATUS,
          histogram: true,
        },
        serverPids,
      }),
  });
  return [
    {
      name: 'url/add',
      run: (url, serverPids, round) =>
        runWrk({
          url,
          connections: 10,
          seconds: 600,
          script: {
            headers: {
              Authorization: `Bearer ${seeded.adderKey}`,
              'Content-Type': 'application/json',
            },
            requests: Array.from({ length: ADDS }, (_, i) => ({
              method: 'POST',
              path: '/api/url/add',
              body: JSON.stringify({ url: `https://example.com/scale/${RUN}/${round}/${i}` }),
            })),
            limit: ADDS,
            onResponse: TALLY_STATUS,
            histogram: true,
          },
          serverPids,
        }),
    },
    {
      name: 'cold redirect',
      run: (url, serverPids, round) => {
        const each = Math.floor(seeded.cold.length / ROUNDS);
        const cold = seeded.cold.slice((round - 1) * each, round * each);
        return runWrk({
          url,
          connections: 50,
          seconds: 600,
          script: {
            // browsers' visits (bench:redirect's mix): each is recorded, then folded
            requests: cold.map((alias, i): WrkRequest => ({
              path: `/${alias}`,
              headers: visitorHeaders(i),
            })),
            limit: cold.length,
            onResponse: TALLY_STATUS,
            histogram: true,
          },
          serverPids,
        });
      },
    },
    list('list page 1', '/api/urls?limit=15&page=1'),
    list('list page 1000', '/api/urls?limit=15&page=1000'),
    list('list by clicks page 1', '/api/urls?limit=15&order=click&page=1'),
    list('list by clicks page 1000', '/api/urls?limit=15&order=click&page=1000'),
    list('search q=garden', '/api/urls?q=garden'),
    {
      name: '365-day statistics',
      run: (url, serverPids) =>
        runWrk({
          url,
          connections: 4,
          seconds: SECONDS,
          script: {
            headers: bigAuth,
            requests: seeded.statIds.map((id) => ({
              path: `/api/url/${id}/stats?from=${day(364)}&to=${day(0)}`,
            })),
            onResponse: TALLY_STATUS,
            histogram: true,
          },
          serverPids,
        }),
    },
  ];
}

/** A scale's api, started on its seeded database: what the rounds measure. */
interface Running {
  scale: Scale;
  server: ChildProcess;
  /** the scale's worker, folding when asked (bench/lib/fold-child.ts) */
  folder: ChildProcess;
  base: string;
  pids: number[];
  ops: Op[];
  seeded: Awaited<ReturnType<typeof seed>>;
}

/** The statistics tables (their indexes and TOAST included), bytes. */
async function statsBytes(url: string): Promise<number> {
  const db = new Client({ connectionString: url });
  await db.connect();
  try {
    const { rows } = await db.query(
      `SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint AS bytes
         FROM pg_class c WHERE c.relkind IN ('r', 'p') AND c.relname LIKE 'link\\_stats\\_%'`,
    );
    return Number(rows[0].bytes);
  } finally {
    await db.end();
  }
}

/** One fold of what a round's runs recorded, with the stores' CPU during it. */
interface Fold extends FoldRun {
  storesUs: number;
}

/** One CSV export of the big user's links (GET /api/urls/export). */
interface ExportRun {
  rows: number;
  bytes: number;
  seconds: number;
  apiUs: number;
  storesUs: number;
}

/** Exports the big user's links once, reading the answer as fast as it comes. */
async function runExport(r: Running): Promise<ExportRun> {
  const api0 = processCpuUs(r.pids[0]);
  const stores0 = storesCpuUs();
  const t0 = performance.now();
  const res = await fetch(`${r.base}/api/urls/export`, {
    headers: { Authorization: `Bearer ${r.seeded.bigKey}` },
  });
  if (res.status !== 200 || !res.body) throw new Error(`export: ${res.status} ${await res.text()}`);
  let lines = 0;
  let bytes = 0;
  for await (const chunk of res.body) {
    bytes += chunk.length;
    for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) lines++;
  }
  return {
    rows: lines - 1,
    bytes,
    seconds: (performance.now() - t0) / 1000,
    apiUs: processCpuUs(r.pids[0]) - api0,
    storesUs: storesSince(stores0),
  };
}

/**
 * Warm-up (not counted), right before the rounds: the api's code compiled, the big user's key
 * cached. Done after both seeds, not after each: a server left idle through the other's
 * seed ran its first measured runs at twice the CPU per request.
 */
async function warmUp({ base, pids, seeded }: Running): Promise<void> {
  const day = new Date().toISOString().slice(0, 10);
  await runWrk({
    url: base,
    connections: 2,
    seconds: 3,
    script: {
      headers: { Authorization: `Bearer ${seeded.bigKey}` },
      requests: [
        { path: '/api/urls?limit=15&page=2' },
        { path: '/api/urls?limit=15&page=999' },
        { path: '/api/urls?limit=15&order=click&page=2' },
        { path: '/api/urls?q=spring' },
        { path: `/api/url/${seeded.statIds[0]}/stats?from=${day}&to=${day}` },
      ],
    },
    serverPids: pids,
  });
  await runWrk({
    url: base,
    connections: 10,
    seconds: 600,
    script: { requests: seeded.warm.map((alias) => ({ path: `/${alias}` })), limit: WARM },
    serverPids: pids,
  });
}

/** Starts a scale's api and seeds its database through it. */
async function start(s: Scale, sizes: string[]): Promise<Running> {
  await runMigrations(s.url);
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const env = {
    APP_SECRET: 'scale-bench-secret-scale-bench-secret',
    PORT: String(port),
    DATABASE_URL: s.url,
    REDIS_URL,
    REDIS_PREFIX: s.prefix,
    PUBLIC_URL: 'http://scale.test',
    DOMAIN_VERIFY: 'off',
    LOG_LEVEL: 'warn',
    RATE_LIMIT: '100000000',
    LINK_CACHE_SIZE: '0',
    LIST_QUERIES_PER_USER: '4',
    ADMIN_EMAIL: `scale-admin-${s.prefix}@example.com`,
    ADMIN_API_KEY: ADMIN_KEY,
  };
  const server = spawnApi(env);
  let folder: ChildProcess | undefined;
  try {
    await waitHealthy(base, 120_000, server);
    folder = await startFoldChild(SERVER_CORE, { ...env, SNAPSHOT_SECONDS: '0' });
    console.log(`\n${s.name}: seeding ${s.links} links (big user ${s.big}) …`);
    const seeded = await seed(s, base);
    const mb = (n: number) => (n / 1024 / 1024).toFixed(0);
    const line1 = `${s.name}: ${s.links} links seeded in ${seeded.seconds.toFixed(0)} s; database ${mb(seeded.size.db)} MB (links ${mb(seeded.size.links)} MB with indexes, ${mb((seeded.size.links / s.links) * 1e6)} MB per million links; daily statistics ${mb(seeded.size.daily)} MB for ${seeded.size.visits} visits, ${(((seeded.size.daily / seeded.size.visits) * 1e6) / 1048576).toFixed(1)} MB per million visits counted by day)`;
    sizes.push(line1);
    console.log(line1);
    const pids = [server.pid as number];
    return { scale: s, server, folder, base, pids, ops: ops(seeded), seeded };
  } catch (err) {
    await stop(server);
    if (folder) await stop(folder);
    throw err;
  }
}

async function main(): Promise<void> {
  ensureWrk();
  const smallBig = Math.max(Math.round((SMALL * BIG) / LINKS), DEEP);
  const scales: Scale[] = [
    {
      name: 'small',
      // the big user's share, but at least DEEP links so that page 1 000 is there to read
      links: SMALL - Math.round((SMALL * BIG) / LINKS) + smallBig,
      big: smallBig,
      url: `postgres://postgres@127.0.0.1:5432/linkmgmt_scale_small_${RUN}`,
      prefix: `scs${process.pid}`,
    },
    {
      name: 'large',
      links: LINKS,
      big: BIG,
      url: `postgres://postgres@127.0.0.1:5432/linkmgmt_scale_large_${RUN}`,
      prefix: `scl${process.pid}`,
    },
  ];
  console.log(
    `bench:scale: ${scales[0].links} links (big user ${scales[0].big}) against ${LINKS} (big user ${BIG}), ${STATS_LINKS} links with a year of statistics, ${ROUNDS} interleaved round(s); api on core 0, wrk on core 1\n${HEADER}`,
  );
  const sizes: string[] = [];
  const running: Running[] = [];
  // runs[op][scale]: one result a round
  const runs = new Map<string, Map<string, RunResult[]>>();
  // by scale: each round's fold and export, and the statistics tables' size before the first fold
  const folds = new Map<string, Fold[]>(scales.map((s) => [s.name, []]));
  const exports = new Map<string, ExportRun[]>(scales.map((s) => [s.name, []]));
  const statsBefore = new Map<string, number>();
  const statsAfter = new Map<string, number>();
  /** `during` at scale `r`, the other scales' apis stopped meanwhile (see the rounds). */
  const alone = async <T>(r: Running, during: () => Promise<T>): Promise<T> => {
    const others = running.filter((o) => o !== r);
    for (const o of others) o.server.kill('SIGSTOP');
    return during().finally(() => {
      for (const o of others) o.server.kill('SIGCONT');
    });
  };
  try {
    for (const s of scales) running.push(await start(s, sizes));
    // the seeds' dirty pages written out now, not by a checkpoint in the middle of a run
    const admin = new Client({ connectionString: scales[0].url });
    await admin.connect();
    await admin.query('CHECKPOINT').finally(() => admin.end());
    // and the kernel's dirty pages of them (gigabytes at 10⁷) written to disk before the runs
    execFileSync('sync');
    for (const r of running) await warmUp(r);
    for (const s of scales) statsBefore.set(s.name, await statsBytes(s.url));
    for (let round = 1; round <= ROUNDS; round++) {
      console.log(`\nround ${round} of ${ROUNDS}`);
      // each operation at both scales one after the other, the order turned every round: a
      // drift of the machine's speed during the run does not favour one scale
      const order = round % 2 ? running : [...running].reverse();
      for (let i = 0; i < running[0].ops.length; i++) {
        for (const r of order) {
          const op = r.ops[i];
          // the other scale's api is stopped meanwhile: its collector, run once its own load
          // stopped (V8 collects a few seconds after the allocation rate falls), would take core
          // 0 from this run; stopped, each api meets its own at the start of its next run
          const result = await alone(r, () => op.run(r.base, r.pids, round));
          const byScale = runs.get(op.name) ?? new Map<string, RunResult[]>();
          byScale.set(r.scale.name, [...(byScale.get(r.scale.name) ?? []), result]);
          runs.set(op.name, byScale);
          console.log(line(`${r.scale.name} ${op.name}`, result, 32));
          if (result.errors) console.log(`  answers by status: ${JSON.stringify(result.tally)}`);
        }
      }
      for (const r of order) {
        const name = r.scale.name;
        // what the round's redirects recorded (each cold redirect a link of its own), folded by
        // the scale's worker on core 0, the api idle
        const fold = await alone(r, async () => {
          const stores0 = storesCpuUs();
          const run = await foldChildRun(r.folder);
          return { ...run, storesUs: storesSince(stores0) };
        });
        folds.get(name)?.push(fold);
        console.log(
          `${`${name} fold`.padEnd(32)} ${fold.clicks} visits of ${fold.links} links in ${fold.seconds.toFixed(2)} s: ` +
            `worker ${(fold.cpuUs / fold.clicks).toFixed(1)} µs/visit, stores ${(fold.storesUs / fold.clicks).toFixed(1)} µs/visit`,
        );
        const ex = await alone(r, () => runExport(r));
        exports.get(name)?.push(ex);
        console.log(
          `${`${name} export`.padEnd(32)} ${ex.rows} rows (${(ex.bytes / 1048576).toFixed(1)} MB) in ${ex.seconds.toFixed(2)} s: ` +
            `${Math.round(ex.rows / ex.seconds)} rows/s, api ${(ex.apiUs / ex.rows).toFixed(2)} µs/row, stores ${(ex.storesUs / ex.rows).toFixed(2)} µs/row`,
        );
      }
    }
    for (const s of scales) statsAfter.set(s.name, await statsBytes(s.url));
  } finally {
    for (const r of running) await Promise.all([stop(r.server), stop(r.folder)]);
    for (const s of scales)
      if (process.env.BENCH_KEEP === '1') console.log(`kept: ${s.url} (Redis prefix ${s.prefix})`);
      else await removeRun({ DATABASE_URL: s.url, REDIS_URL, REDIS_PREFIX: s.prefix });
  }

  const ok = checkHeadroom(
    [...runs.entries()].map(([name, byScale]) => [name, [...byScale.values()].flat()]),
  );
  console.log(`\n${sizes.join('\n')}`);
  console.log(
    `\nlarge / small: medians over ${ROUNDS} round(s), the ratio the median of the rounds' ratios (rounds in brackets);` +
      `\n  then "pooled": the percentiles of all ${ROUNDS} rounds' requests together at each scale, and their ratio (goal ≤ ${GOAL})`,
  );
  let errors = 0;
  const missed: string[] = [];
  const f2 = (x: number) => x.toFixed(2);
  for (const [name, byScale] of runs) {
    const small = byScale.get('small');
    const large = byScale.get('large');
    if (!small || !large) continue;
    errors += [...small, ...large].reduce((n, r) => n + r.errors, 0);
    const [ms, ml] = [medianOf(small), medianOf(large)];
    const ratios = (f: (r: RunResult) => number) => {
      const each = small.map((r, i) => f(large[i]) / f(r));
      return `${f2(median(each))}× (${each.map(f2).join(', ')})`;
    };
    console.log(
      `  ${name.padEnd(26)} p50 ${f2(ms.p50Ms).padStart(7)} → ${f2(ml.p50Ms).padStart(7)} ms ${ratios((r) => r.p50Ms)}  p99 ${f2(ms.p99Ms).padStart(7)} → ${f2(ml.p99Ms).padStart(7)} ms ${ratios((r) => r.p99Ms)}  ${ms.rps.toFixed(0)} → ${ml.rps.toFixed(0)} req/s  api ${ms.serverUs.toFixed(0)} → ${ml.serverUs.toFixed(0)} µs/req  wrk ≤ ${(Math.max(...[...small, ...large].map((r) => r.generatorUtil)) * 100).toFixed(0)} %`,
    );
    const pooled = [50, 99, 99.9].map((p) => {
      const [a, b] = [pooledPercentile(small, p), pooledPercentile(large, p)];
      if (p <= 99 && b / a > GOAL) missed.push(`${name} p${p} ${f2(b / a)}×`);
      return `p${p} ${f2(a).padStart(7)} → ${f2(b).padStart(7)} ms ${f2(b / a)}×`;
    });
    console.log(`  ${''.padEnd(26)} pooled: ${pooled.join('  ')}`);
  }
  console.log(
    `\ngoal (every pooled p50 and p99 at ${scales[1].links} links within ${GOAL}× of ${scales[0].links}): ${missed.length ? `missed by ${missed.join(', ')}` : 'met'}`,
  );
  reportFoldAndExport(scales, runs.get('cold redirect'), folds, exports);
  for (const s of scales) {
    const before = statsBefore.get(s.name) ?? 0;
    const after = statsAfter.get(s.name) ?? 0;
    const visits = (folds.get(s.name) ?? []).reduce((n, f) => n + f.clicks, 0);
    console.log(
      `${s.name}: the statistics tables grew ${((after - before) / 1048576).toFixed(1)} MB for the ${visits} visits folded ` +
        `(each the first of its link and day): ${((after - before) / visits / 1024).toFixed(2)} KB a visit, ` +
        `${((after - before) / visits).toFixed(0)} MB per million visits of that kind`,
    );
  }
  console.log(`\nerrors (non-2xx/3xx, socket errors): ${errors}`);
  process.exitCode = ok && errors === 0 ? 0 : 1;
}

/**
 * The fold and the export at both scales: their medians and the large/small ratios, and the fold
 * against what recorded its visits (the cold redirects: one api core records 1 / its CPU a
 * request; one worker core folds the visits / its CPU time), against FOLD_GOAL.
 */
function reportFoldAndExport(
  scales: Scale[],
  cold: Map<string, RunResult[]> | undefined,
  folds: Map<string, Fold[]>,
  exports: Map<string, ExportRun[]>,
): void {
  const f2 = (x: number) => x.toFixed(2);
  const per = (name: string) => {
    const f = folds.get(name) ?? [];
    const e = exports.get(name) ?? [];
    const record = median((cold?.get(name) ?? []).map((r) => r.serverUs));
    const workerUs = median(f.map((x) => x.cpuUs / x.clicks));
    return {
      workerUs,
      storesUs: median(f.map((x) => x.storesUs / x.clicks)),
      wallRate: median(f.map((x) => x.clicks / x.seconds)),
      ratio: record / workerUs,
      rows: median(e.map((x) => x.rows)),
      rowsPerS: median(e.map((x) => x.rows / x.seconds)),
      apiUs: median(e.map((x) => x.apiUs / x.rows)),
      exportStoresUs: median(e.map((x) => x.storesUs / x.rows)),
    };
  };
  const [small, large] = scales.map((s) => per(s.name));
  console.log(`\nthe fold of each round's visits (medians over the rounds), small → large:`);
  console.log(
    `  worker ${f2(small.workerUs)} → ${f2(large.workerUs)} µs/visit (${f2(large.workerUs / small.workerUs)}×), ` +
      `stores ${f2(small.storesUs)} → ${f2(large.storesUs)} µs/visit (${f2(large.storesUs / small.storesUs)}×), ` +
      `${Math.round(small.wallRate)} → ${Math.round(large.wallRate)} visits/s of wall time`,
  );
  for (const [s, x] of [
    [scales[0], small],
    [scales[1], large],
  ] as const) {
    const met = x.ratio >= FOLD_GOAL;
    console.log(
      `  ${s.name}: one worker core folds ${f2(x.ratio)}× what one api core records with the cold redirects ` +
        `(goal ≥ ${FOLD_GOAL}: ${met ? 'met' : 'MISSED'})`,
    );
  }
  console.log(
    `the export of the big user's links (GET /api/urls/export), small → large: ${small.rows} → ${large.rows} rows, ` +
      `${Math.round(small.rowsPerS)} → ${Math.round(large.rowsPerS)} rows/s (${f2(large.rowsPerS / small.rowsPerS)}×), ` +
      `api ${f2(small.apiUs)} → ${f2(large.apiUs)} µs/row, stores ${f2(small.exportStoresUs)} → ${f2(large.exportStoresUs)} µs/row`,
  );
}

runBench(main);
