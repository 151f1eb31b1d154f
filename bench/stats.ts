/**
 * Statistics benchmark: `npm run bench:stats` (STATS_BENCH_SECONDS, STATS_BENCH_CONNECTIONS,
 * STATS_BENCH_EXPORT_ROWS, STATS_BENCH_EXPORT_ROUNDS).
 *
 * Runs the built api (dist, `npm run build` first, which the script does) as a process of its own
 * on a database and Redis prefix of its own (dropped at the end).
 *
 * 1. Range read: one link with 365 days of history (per day: 200 countries, 50 referrers, 20
 *    browsers, 10 OS, 4 devices, 20 languages, 100 cities, 50 regions, 20 UTM sources, 10 UTM
 *    mediums, 20 UTM campaigns, 100 referrer URLs, 50 device models (and their month sums),
 *    a HyperLogLog sketch of
 *    2 000 visitors out of a population of 100 000), among 10 000 other links with 30 days each. `GET /api/url/:id/stats`
 *    over 365 days against `GET /api/url/:id` of the same link (the v3 read: lifetime totals and
 *    top maps), each for STATS_BENCH_SECONDS with autocannon: p50, p99, requests/s.
 * 2. Export: the same user owns STATS_BENCH_EXPORT_ROWS links (1 000 000). A bare
 *    `COPY (<the export's SELECT without its formula guard>) TO STDOUT (FORMAT csv)` through pg
 *    (pg-copy-streams) in this process against `GET /api/urls/export` through the api (the same
 *    COPY with the guard, relayed over HTTP), both consumed as fast as they come; rows/s, and the
 *    api's resident memory sampled every 20 ms (before, peak); alternately, 3 rounds, the median
 *    ratio reported.
 * Each measurement reports this process's CPU (autocannon, or the download's reader) in % of one
 * core: the client was not the bottleneck.
 * Results on stdout and in bench-results/stats.json.
 *
 * BENCH_PG=replica: the database lives on a Postgres primary of the run's own with an asynchronous
 * streaming standby (TestPgReplica of test/support/services.ts, no apply delay), seeded on the
 * primary; the standby has replayed everything before each measurement. Two apis run side by
 * side: "primary only" (DATABASE_URL alone, the baseline) and "with replica" (DATABASE_REPLICA_URLS
 * = the standby), each measured as above, the bare COPY run on the server its export reads. Then
 * each mode serves STATS_BENCH_COUNTED (200) link reads, as many range reads and one export
 * alone, and the bench reads the run's database's counters on the primary and on the standby
 * around each (rows and buffers read, from pg_stat_database; sequential and index scans by table):
 * where the reads ran. Autovacuum is off on that primary (its reads would count). Results in
 * bench-results/stats-replica.json; both servers are stopped (by pid if pg_ctl fails) and their
 * folders removed at the end, on failure and on SIGINT/SIGTERM too.
 */
import 'reflect-metadata';

import { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { get as httpGet } from 'node:http';
import { join } from 'node:path';

import { Client, Pool } from 'pg';
import { to as copyTo } from 'pg-copy-streams';

import { loadConfig } from '../libs/config/src/app-config';
import { createRedisClient, RedisClient } from '../libs/redis/src/redis-client';
import { compactEncoding, compactHll, emptyRegisters, mergeHll } from '../libs/stats/src/hll';
import { TestPgReplica } from '../test/support/services';
import { stop } from './lib/harness';
import { freePort, removeRun, rssMb, RUN, runBench, runEnvironment, startBuilt } from './lib/run';

const SECONDS = Number(process.env.STATS_BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.STATS_BENCH_CONNECTIONS ?? 4);
const EXPORT_ROWS = Number(process.env.STATS_BENCH_EXPORT_ROWS ?? 1_000_000);
const EXPORT_ROUNDS = Number(process.env.STATS_BENCH_EXPORT_ROUNDS ?? 3);
/** BENCH_PG=replica: a primary with a streaming standby of the run's own, both modes compared. */
const PG_MODE = process.env.BENCH_PG ?? 'single';
/** Requests of each read in the counted pass (BENCH_PG=replica). */
const COUNTED = Number(process.env.STATS_BENCH_COUNTED ?? 200);
/**
 * An idle backend reports its counters to pg_stat_database at most 10 s after its last
 * transaction (PGSTAT_IDLE_INTERVAL); the counted pass waits this long before each reading.
 */
const STATS_SETTLE_MS = 11_000;
const OTHER_LINKS = 10_000;
const PUBLIC_URL = 'http://short.bench';

interface AutocannonResult {
  requests: { average: number };
  latency: { p50: number; p99: number };
  statusCodeStats: Record<string, { count: number }>;
  errors: number;
  non2xx: number;
}
// autocannon ships no type declarations
const autocannon: (opts: {
  url: string;
  connections: number;
  duration: number;
  headers: Record<string, string>;
}) => Promise<AutocannonResult> = require('autocannon');

const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

async function seed(db: Pool, redis: RedisClient, userId: number, prefix: string): Promise<number> {
  const today = Date.now();
  const started = Date.now();
  // 10 000 other links, 30 days each (clicks, 4 dimensions a day)
  await db.query(
    `INSERT INTO links (user_id, kind, alias, url, title)
     SELECT $1, 'link', 'o' || g, 'https://example.com/other/' || g, 'Other ' || g FROM generate_series(1, $2) g`,
    [userId, OTHER_LINKS],
  );
  await db.query(
    `INSERT INTO link_stats_daily (link_id, day, clicks, uniques)
     SELECT l.id, current_date - d, 10, 5 FROM links l, generate_series(0, 29) d WHERE l.user_id = $1`,
    [userId],
  );
  await db.query(
    `INSERT INTO link_stats_dims (link_id, day, dim, label, count)
     SELECT l.id, current_date - d, x.dim, x.label, 10
       FROM links l, generate_series(0, 29) d,
            (VALUES ('co', 'France'), ('re', 'Direct'), ('br', 'Chrome'), ('os', 'Windows')) x(dim, label)
      WHERE l.user_id = $1`,
    [userId],
  );
  // the measured link: 365 days
  const [link] = (
    await db.query(
      `INSERT INTO links (user_id, kind, alias, url, title) VALUES ($1, 'link', 'measured', 'https://example.com/m', 'Measured') RETURNING id`,
      [userId],
    )
  ).rows;
  const linkId: number = link.id;
  const dims: Array<[string, number]> = [
    ['co', 200],
    ['re', 50],
    ['br', 20],
    ['os', 10],
    ['de', 4],
    ['la', 20],
    // the dimensions visitors choose, as many labels a day as the label cap lets some reach
    ['ci', 100],
    ['rg', 50],
    ['us', 20],
    ['um', 10],
    ['uc', 20],
    ['ru', 100],
    ['dm', 50],
  ];
  for (const [dim, n] of dims)
    await db.query(
      `INSERT INTO link_stats_dims (link_id, day, dim, label, count)
       SELECT $1, current_date - d, $2::varchar, $2::varchar || '-' || v, 1 + (d * 7 + v * 13) % 97
         FROM generate_series(0, 364) d, generate_series(1, $3) v`,
      [linkId, dim, n],
    );
  // month sums, as the fold keeps them: each the sum of its days
  await db.query(
    `INSERT INTO link_stats_dims_monthly (link_id, month, dim, label, count)
     SELECT link_id, date_trunc('month', day)::date, dim, label, SUM(count)
       FROM link_stats_dims GROUP BY 1, 2, 3, 4`,
  );
  const key = `${prefix}:bench:hll`;
  const days: string[] = [];
  const clicks: number[] = [];
  const uniques: number[] = [];
  const sketches: Buffer[] = [];
  for (let d = 0; d < 365; d++) {
    await redis.del(key);
    const visitors = Array.from({ length: 2000 }, () => `v${Math.floor(Math.random() * 100_000)}`);
    await redis.pfadd(key, ...visitors);
    days.push(isoDay(today - d * 86_400_000));
    clicks.push(3000);
    uniques.push(await redis.pfcount(key));
    sketches.push(compactHll((await redis.getBuffer(key)) as Buffer)); // as the fold stores it
  }
  await redis.del(key);
  await db.query(
    `INSERT INTO link_stats_daily (link_id, day, clicks, uniques, sketch)
     SELECT $1, * FROM unnest($2::date[], $3::bigint[], $4::bigint[], $5::bytea[])`,
    [linkId, days, clicks, uniques, sketches],
  );
  // month sketches, as the fold keeps them: the union of each month's day sketches
  const months = new Map<string, Uint8Array>();
  days.forEach((day, i) => {
    const month = `${day.slice(0, 8)}01`;
    const registers = months.get(month) ?? emptyRegisters();
    months.set(month, registers);
    mergeHll(registers, sketches[i]);
  });
  await db.query(
    `INSERT INTO link_stats_monthly (link_id, month, sketch)
     SELECT $1, * FROM unnest($2::date[], $3::bytea[])`,
    [linkId, [...months.keys()], [...months.values()].map(compactEncoding)],
  );
  await db.query(`INSERT INTO link_stats_total (link_id, clicks, uniques) VALUES ($1, $2, $3)`, [
    linkId,
    365 * 3000,
    uniques.reduce((a, b) => a + b, 0),
  ]);
  await db.query('ANALYZE');
  console.log(`seeded the range read in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return linkId;
}

/**
 * Runs `work` and returns its result with the CPU this process (the load generator or the
 * download's reader) spent meanwhile, in % of one core: proof it was not the bottleneck.
 */
async function withClientCpu<T extends object>(
  work: () => Promise<T>,
): Promise<T & { clientCpu: number }> {
  const cpu = process.cpuUsage();
  const started = process.hrtime.bigint();
  const result = await work();
  const used = process.cpuUsage(cpu);
  const wallUs = Number(process.hrtime.bigint() - started) / 1000;
  return { ...result, clientCpu: ((used.user + used.system) / wallUs) * 100 };
}

function measure(url: string, key: string) {
  return withClientCpu(async () => {
    const r = await autocannon({
      url,
      connections: CONNECTIONS,
      duration: SECONDS,
      headers: { Authorization: `Bearer ${key}` },
    });
    const ok = Number(r.statusCodeStats['200']?.count ?? 0);
    if (r.non2xx || r.errors) throw new Error(`${url}: ${r.non2xx} non-2xx, ${r.errors} errors`);
    return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, requests: ok };
  });
}

/** Streams `COPY (sql) TO STDOUT` through pg, counting bytes and lines. */
async function copyBaseline(db: Pool, text: string) {
  const client = await db.connect();
  const started = Date.now();
  let bytes = 0;
  let lines = 0;
  try {
    const stream = client.query(copyTo(`COPY (${text}) TO STDOUT WITH (FORMAT csv, HEADER)`));
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      bytes += chunk.length;
      for (let i = 0; i < chunk.length; i++) if (chunk[i] === 10) lines++;
    }
  } finally {
    client.release();
  }
  const ms = Date.now() - started;
  return { rows: lines - 1, bytes, ms, rowsPerSecond: ((lines - 1) / ms) * 1000 };
}

/** Downloads the api's export, counting bytes and lines; samples the api's RSS every 20 ms. */
async function apiExport(port: number, key: string, pid: number) {
  const before = await rssMb(pid);
  let peak = before;
  const sampler = setInterval(() => {
    void rssMb(pid).then((mb) => (peak = Math.max(peak, mb)));
  }, 20);
  const started = Date.now();
  const { bytes, lines } = await new Promise<{ bytes: number; lines: number }>(
    (resolve, reject) => {
      httpGet(
        `http://127.0.0.1:${port}/api/urls/export`,
        { headers: { Authorization: `Bearer ${key}` } },
        (res) => {
          if (res.statusCode !== 200) reject(new Error(`export: ${res.statusCode}`));
          let b = 0;
          let l = 0;
          res.on('data', (chunk: Buffer) => {
            b += chunk.length;
            for (let i = 0; i < chunk.length; i++) if (chunk[i] === 10) l++;
          });
          res.on('end', () => resolve({ bytes: b, lines: l }));
          res.on('error', reject);
        },
      ).on('error', reject);
    },
  );
  const ms = Date.now() - started;
  clearInterval(sampler);
  return {
    rows: lines - 1,
    bytes,
    ms,
    rowsPerSecond: ((lines - 1) / ms) * 1000,
    rssBeforeMb: before,
    rssPeakMb: peak,
    rssGrowthMb: peak - before,
  };
}

/** One api the bench measures: its mode's label (several in a BENCH_PG=replica run). */
interface Mode {
  name: 'single' | 'primary' | 'replica';
  label: string;
  api: ChildProcess;
  port: number;
  /** where this mode's bare COPY runs: the server its export reads */
  copyDb: Pool;
}

/** `[label] ` before a line when the run compares modes. */
const tag = (mode: Mode) => (mode.label ? `[${mode.label}] ` : '');

/** Link read against range read, warmed up, twice each, alternating; the best run of each. */
async function rangeReads(mode: Mode, linkId: number, apiKey: string) {
  const base = `http://127.0.0.1:${mode.port}`;
  const from = isoDay(Date.now() - 364 * 86_400_000);
  const to = isoDay(Date.now());
  // warm-up, then each read twice, alternating (order effects on a shared machine)
  await measure(`${base}/api/url/${linkId}`, apiKey);
  await measure(`${base}/api/url/${linkId}/stats?from=${from}&to=${to}`, apiKey);
  const details = [];
  const ranges = [];
  for (let round = 0; round < 2; round++) {
    details.push(await measure(`${base}/api/url/${linkId}`, apiKey));
    ranges.push(await measure(`${base}/api/url/${linkId}/stats?from=${from}&to=${to}`, apiKey));
  }
  const best = <T extends { rps: number }>(runs: T[]) =>
    runs.reduce((a, b) => (b.rps > a.rps ? b : a));
  const detail = best(details);
  const range = best(ranges);
  console.log(
    `${tag(mode)}GET /api/url/:id             ${detail.rps.toFixed(0).padStart(6)} req/s  p50 ${detail.p50} ms  p99 ${detail.p99} ms  (autocannon ${detail.clientCpu.toFixed(0)} % of a core)`,
  );
  console.log(
    `${tag(mode)}GET /api/url/:id/stats (365d) ${range.rps.toFixed(0).padStart(6)} req/s  p50 ${range.p50} ms  p99 ${range.p99} ms  (autocannon ${range.clientCpu.toFixed(0)} % of a core)`,
  );
  const ratio = {
    p50: range.p50 / Math.max(detail.p50, 1),
    p99: range.p99 / Math.max(detail.p99, 1),
    throughput: detail.rps / range.rps,
  };
  console.log(
    `${tag(mode)}cost ratio (range / details): p50 ${ratio.p50.toFixed(2)}×, p99 ${ratio.p99.toFixed(2)}×, throughput ${ratio.throughput.toFixed(2)}× (target ≤ 3×)`,
  );
  return { details: detail, range, ratio, detailRuns: details, rangeRuns: ranges };
}

/** EXPORT_ROUNDS rounds of bare COPY against the api's export, alternately; the median round. */
async function exports(mode: Mode, apiKey: string, bare: string) {
  await copyBaseline(mode.copyDb, bare); // warm the cache
  const rounds: Array<{
    copy: Awaited<ReturnType<typeof copyBaseline>> & { clientCpu: number };
    api: Awaited<ReturnType<typeof apiExport>> & { clientCpu: number };
    ratio: number;
  }> = [];
  for (let round = 0; round < EXPORT_ROUNDS; round++) {
    const copy = await withClientCpu(() => copyBaseline(mode.copyDb, bare));
    const exported = await withClientCpu(() =>
      apiExport(mode.port, apiKey, mode.api.pid as number),
    );
    if (exported.rows !== copy.rows)
      throw new Error(`export ${exported.rows} rows, COPY ${copy.rows}`);
    const ratio = exported.rowsPerSecond / copy.rowsPerSecond;
    rounds.push({ copy, api: exported, ratio });
    console.log(
      `${tag(mode)}round ${round + 1}: COPY ${copy.rowsPerSecond.toFixed(0)} rows/s (reader ${copy.clientCpu.toFixed(0)} % of a core), ` +
        `export ${exported.rowsPerSecond.toFixed(0)} rows/s (reader ${exported.clientCpu.toFixed(0)} %): ${ratio.toFixed(2)}×`,
    );
  }
  const median = [...rounds].sort((a, b) => a.ratio - b.ratio)[Math.floor(rounds.length / 2)];
  const { copy, api: exported } = median;
  console.log(
    `${tag(mode)}COPY … TO STDOUT (pg)   ${copy.rows} rows ${(copy.bytes / 1e6).toFixed(0)} MB in ${copy.ms} ms: ${copy.rowsPerSecond.toFixed(0)} rows/s`,
  );
  console.log(
    `${tag(mode)}GET /api/urls/export    ${exported.rows} rows ${(exported.bytes / 1e6).toFixed(0)} MB in ${exported.ms} ms: ${exported.rowsPerSecond.toFixed(0)} rows/s (${median.ratio.toFixed(2)}× COPY, median of ${rounds.length} rounds, all ${rounds.map((r) => r.ratio.toFixed(2)).join(' ')}; target ≥ 0.5×)`,
  );
  const growth = Math.max(...rounds.map((r) => r.api.rssGrowthMb));
  console.log(
    `${tag(mode)}api RSS ${exported.rssBeforeMb.toFixed(0)} MB before, +${growth.toFixed(1)} MB at the highest peak of any round (target < 50 MB)`,
  );
  return { copy, api: exported, ratio: median.ratio, rounds };
}

/**
 * The tables and indexes of the run's database by OID, each under its table's name (a physical
 * standby has the same OIDs as its primary).
 */
async function relations(url: string): Promise<Map<number, string>> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query(
      `SELECT c.oid::int AS oid, coalesce(t.relname, c.relname) AS tbl
         FROM pg_class c
         JOIN pg_namespace n ON n.oid = c.relnamespace
         LEFT JOIN pg_index i ON i.indexrelid = c.oid
         LEFT JOIN pg_class t ON t.oid = i.indrelid
        WHERE n.nspname = 'public' AND c.relkind IN ('r', 'i')`,
    );
    return new Map(rows.map((r: { oid: number; tbl: string }) => [r.oid, r.tbl]));
  } finally {
    await client.end();
  }
}

/** What one server did in the run's database: from pg_stat_database and the per-relation scans. */
interface DbCounters {
  /** rows read: tup_returned (scans) + tup_fetched (index fetches) */
  tuples: number;
  /** buffer accesses: blks_hit + blks_read */
  blocks: number;
  /** sequential and index scans, by table (its indexes' included) */
  scans: Record<string, number>;
}

/**
 * Reads the counters of the run's database on one server: pg_stat_database from the `postgres`
 * database, the scans through pg_stat_get_numscans() of the known OIDs. Its two connections stay
 * open (a new one would read the catalogs, and count, at every reading); what a reading itself
 * reads is a few rows of pg_stat_database.
 */
class ServerCounters {
  private readonly admin: Client;
  private readonly local: Client;

  constructor(
    serverUrl: string,
    private readonly database: string,
    private readonly rels: Map<number, string>,
  ) {
    const admin = new URL(serverUrl);
    admin.pathname = '/postgres';
    this.admin = new Client({ connectionString: admin.toString() });
    this.local = new Client({ connectionString: serverUrl });
  }

  async connect(): Promise<void> {
    await Promise.all([this.admin.connect(), this.local.connect()]);
  }

  async end(): Promise<void> {
    await Promise.all([this.admin.end(), this.local.end()]);
  }

  async read(): Promise<DbCounters> {
    const [[db], scanRows] = await Promise.all([
      this.admin
        .query(
          `SELECT tup_returned + tup_fetched AS tuples, blks_hit + blks_read AS blocks
             FROM pg_stat_database WHERE datname = $1`,
          [this.database],
        )
        .then((r) => r.rows),
      this.local
        .query(`SELECT o::int AS oid, pg_stat_get_numscans(o) AS n FROM unnest($1::oid[]) o`, [
          [...this.rels.keys()],
        ])
        .then((r) => r.rows as Array<{ oid: number; n: string }>),
    ]);
    const scans: Record<string, number> = {};
    for (const { oid, n } of scanRows) {
      const table = this.rels.get(oid) as string;
      scans[table] = (scans[table] ?? 0) + Number(n);
    }
    return { tuples: Number(db.tuples), blocks: Number(db.blocks), scans };
  }
}

/** The counters of the run's database on the primary and on the standby. */
type Counters = { primary: ServerCounters; standby: ServerCounters };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Counters on the primary and the standby, once every backend has reported what it did
 * (STATS_SETTLE_MS of quiet first).
 */
async function settledCounters(counters: Counters) {
  await sleep(STATS_SETTLE_MS);
  const [primary, standby] = await Promise.all([counters.primary.read(), counters.standby.read()]);
  return { primary, standby };
}

/** What a server did between two readings. */
function delta(before: DbCounters, after: DbCounters): DbCounters {
  const scans: Record<string, number> = {};
  for (const [table, n] of Object.entries(after.scans))
    if (n - (before.scans[table] ?? 0) > 0) scans[table] = n - (before.scans[table] ?? 0);
  return { tuples: after.tuples - before.tuples, blocks: after.blocks - before.blocks, scans };
}

const totalScans = (c: DbCounters) => Object.values(c.scans).reduce((a, b) => a + b, 0);

/**
 * The counted pass of one mode (BENCH_PG=replica): COUNTED link reads and COUNTED range reads
 * (or one export), one after the other, each alone between settled readings on the primary and
 * the standby: per request, the rows and buffers each server read and the tables it scanned, and
 * the standby's share. (Transactions are not counted: the replica lag checks, one a second on
 * each server, reach pg_stat_database in lumps a minute apart.)
 */
async function countedPass(
  mode: Mode,
  counters: Counters,
  apiKey: string,
  linkId: number,
  only?: 'export',
) {
  const base = `http://127.0.0.1:${mode.port}`;
  const headers = { Authorization: `Bearer ${apiKey}` };
  const from = isoDay(Date.now() - 364 * 86_400_000);
  const to = isoDay(Date.now());
  const get = async (path: string, times: number) => {
    for (let i = 0; i < times; i++) {
      const res = await fetch(`${base}${path}`, { headers });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
    }
  };
  const scenarios: Array<[string, number, () => Promise<void>]> =
    only === 'export'
      ? [['GET /api/urls/export', 1, () => get('/api/urls/export', 1)]]
      : [
          ['GET /api/url/:id', COUNTED, () => get(`/api/url/${linkId}`, COUNTED)],
          [
            'GET /api/url/:id/stats (365d)',
            COUNTED,
            () => get(`/api/url/${linkId}/stats?from=${from}&to=${to}`, COUNTED),
          ],
        ];
  const out = [];
  let before = await settledCounters(counters);
  for (const [name, requests, run] of scenarios) {
    await run();
    const after = await settledCounters(counters);
    const primary = delta(before.primary, after.primary);
    const standby = delta(before.standby, after.standby);
    before = after;
    const share = (a: number, b: number) => a / Math.max(1, a + b);
    const standbyShare = {
      tuples: share(standby.tuples, primary.tuples),
      blocks: share(standby.blocks, primary.blocks),
      scans: share(totalScans(standby), totalScans(primary)),
    };
    const per = (c: DbCounters) => {
      const tables = Object.entries(c.scans)
        .sort((x, y) => y[1] - x[1])
        .map(([t, n]) => `${t} ${(n / requests).toFixed(2)}`)
        .join(', ');
      return `${(c.tuples / requests).toFixed(0)} rows, ${(c.blocks / requests).toFixed(0)} buffers, ${(totalScans(c) / requests).toFixed(2)} scans${tables ? ` (${tables})` : ''}`;
    };
    console.log(`${tag(mode)}${name} ×${requests}, per request:`);
    console.log(`${tag(mode)}  primary: ${per(primary)}`);
    console.log(`${tag(mode)}  standby: ${per(standby)}`);
    console.log(
      `${tag(mode)}  standby's share: rows ${(standbyShare.tuples * 100).toFixed(1)} %, buffers ${(standbyShare.blocks * 100).toFixed(1)} %, scans ${(standbyShare.scans * 100).toFixed(1)} %`,
    );
    out.push({ scenario: name, requests, primary, standby, standbyShare });
  }
  return out;
}

/** The postmaster's pid of a TestPostgres data folder (0: none). */
function postmasterPid(dir: string): number {
  const file = join(dir, 'data', 'postmaster.pid');
  return existsSync(file) ? Number(readFileSync(file, 'utf8').split('\n')[0]) : 0;
}

/** True while `pid` is a postgres process that has not exited (a zombie has). */
function postgresAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // "<pid> (<comm>) <state> …"
    return /\(postgres\) [^Z]/.test(stat);
  } catch {
    return false;
  }
}

/**
 * Stops a TestPgReplica for good: pg_ctl (immediate), then SIGKILL to a postmaster still running
 * 5 s later (by the pid it wrote at start), then its folders removed.
 */
async function destroyReplica(pg: TestPgReplica, pids: number[]): Promise<void> {
  await pg.destroy().catch((err: unknown) => console.error(err));
  for (const pid of pids) {
    for (let i = 0; i < 50 && postgresAlive(pid); i++) await sleep(100);
    if (!postgresAlive(pid)) continue;
    console.error(`postgres ${pid} still running after pg_ctl stop: SIGKILL`);
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone meanwhile
    }
  }
  for (const server of [pg.standby, pg.primary])
    rmSync(server.dir, { recursive: true, force: true });
}

/**
 * What a run has to undo, in reverse order, each step whatever the others did: at the end, on a
 * failure, and on SIGINT/SIGTERM (then the process exits).
 */
class Cleanup {
  private steps: Array<[string, () => Promise<unknown>]> = [];
  private running: Promise<void> | null = null;

  constructor() {
    for (const signal of ['SIGINT', 'SIGTERM'] as const)
      process.once(signal, () => {
        console.error(`${signal}: cleaning up`);
        void this.run().finally(() => process.exit(130));
      });
  }

  add(name: string, step: () => Promise<unknown>): void {
    this.steps.push([name, step]);
  }

  run(): Promise<void> {
    this.running ??= (async () => {
      for (const [name, step] of this.steps.reverse())
        await step().catch((err: unknown) => console.error(`cleanup: ${name}:`, err));
    })();
    return this.running;
  }
}

async function main(): Promise<void> {
  if (PG_MODE !== 'single' && PG_MODE !== 'replica')
    throw new Error(`BENCH_PG must be replica (or unset), not ${PG_MODE}`);
  const cleanup = new Cleanup();
  try {
    await bench(cleanup);
  } finally {
    await cleanup.run();
  }
}

async function bench(cleanup: Cleanup): Promise<void> {
  const database = `linkmgmt_bench_${RUN}`;
  let pg: TestPgReplica | undefined;
  if (PG_MODE === 'replica') {
    const started = Date.now();
    // no apply delay: the standby replays as fast as it can, as a production one would
    const replica = await TestPgReplica.start(0);
    const pids = [replica.primary, replica.standby].map((s) => postmasterPid(s.dir));
    cleanup.add('postgres primary and standby', () => destroyReplica(replica, pids));
    pg = replica;
    console.log(
      `postgres primary :${pg.primary.port} and streaming standby :${pg.standby.port} (pids ${pids.join(', ')}) in ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
  }
  const env = runEnvironment('sb', `/tmp/stats-bench-${RUN}`, {
    RATE_LIMIT: '100000000',
    DOMAIN_VERIFY: 'off',
    // the primary-only api reads the primary alone, whatever the calling shell says
    DATABASE_REPLICA_URLS: '',
    ...(pg ? { DATABASE_URL: pg.primary.url(database) } : {}),
  });
  // the run's database, Redis keys and storage (before the servers stop: added after them)
  cleanup.add('the run', () => removeRun(env));
  const { runMigrations } = await import('../libs/database/src/data-source');
  const { inlineParams, linksExportSql } =
    await import('../apps/api/src/stats/stats-export.service');

  const db = new Pool({ connectionString: env.DATABASE_URL, max: 2 });
  cleanup.add('pool', () => db.end());
  // in the mode the environment configures (REDIS_CLUSTER_NODES, REDIS_SENTINELS or REDIS_URL)
  const redis = createRedisClient(loadConfig(env));
  cleanup.add('redis', () => redis.quit());

  await runMigrations(env.DATABASE_URL);
  // BENCH_PG=replica: the relations whose scans the counted pass reads, and no autovacuum on the
  // run's own primary (its reads would land in the counters; the seed ANALYZEs by itself)
  const rels = pg ? await relations(env.DATABASE_URL) : new Map<number, string>();
  let counters: Counters | undefined;
  if (pg) {
    const admin = new Client(pg.primary.url('postgres'));
    await admin.connect();
    await admin.query('ALTER SYSTEM SET autovacuum = off');
    await admin.query('SELECT pg_reload_conf()');
    await admin.end();
    await pg.caughtUp(); // the run's database on the standby
    const both = {
      primary: new ServerCounters(pg.primary.url(database), database, rels),
      standby: new ServerCounters(pg.standby.url(database), database, rels),
    };
    for (const [name, c] of Object.entries(both)) {
      await c.connect();
      cleanup.add(`${name} counters`, () => c.end());
    }
    counters = both;
  }
  const apiKey = `benchstatskey${RUN}`.padEnd(40, 'k');
  const email = `bench${RUN}@example.com`;
  const startApi = async (extra: Record<string, string>) => {
    const port = await freePort();
    const api = await startBuilt(
      'api',
      {
        ...env,
        ...extra,
        PORT: String(port),
        ADMIN_EMAIL: email,
        ADMIN_API_KEY: apiKey,
        ADMIN_PASSWORD: 'bench-pass1',
      },
      'api listening',
    );
    cleanup.add(`api :${port}`, () => stop(api));
    return { api, port };
  };
  const modes: Mode[] = [];
  const first = await startApi({});
  modes.push({
    name: pg ? 'primary' : 'single',
    label: pg ? 'primary only' : '',
    ...first,
    copyDb: db,
  });
  if (pg) {
    const standby = new Pool({ connectionString: pg.standby.url(database), max: 2 });
    cleanup.add('standby pool', () => standby.end());
    // the same build beside it, reading the standby (the same Redis prefix: two replicas of the api)
    const second = await startApi({ DATABASE_REPLICA_URLS: pg.standby.url(database) });
    modes.push({ name: 'replica', label: 'with replica', ...second, copyDb: standby });
  }
  const userId: number = (await db.query(`SELECT id FROM users WHERE email = $1`, [email])).rows[0]
    .id;
  const linkId = await seed(db, redis, userId, env.REDIS_PREFIX);
  const caughtUp = async () => {
    if (!pg) return;
    const started = Date.now();
    await pg.caughtUp(120_000);
    console.log(`standby replayed in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  };
  await caughtUp();

  const range: Record<string, Awaited<ReturnType<typeof rangeReads>>> = {};
  const counted: Record<string, Array<Awaited<ReturnType<typeof countedPass>>>> = {};
  for (const mode of modes) {
    range[mode.name] = await rangeReads(mode, linkId, apiKey);
    if (counters) counted[mode.name] = [await countedPass(mode, counters, apiKey, linkId)];
  }

  // export: fill up to EXPORT_ROWS links
  const startedSeed = Date.now();
  const have = Number(
    (await db.query(`SELECT count(*) AS n FROM links WHERE user_id = $1`, [userId])).rows[0].n,
  );
  for (let done = have; done < EXPORT_ROWS; done += 200_000)
    await db.query(
      `INSERT INTO links (user_id, kind, alias, url, title)
       SELECT $1, 'link', 'x' || g, 'https://example.com/export/' || g || '?utm_source=bench', 'Export row ' || g
         FROM generate_series($2::int, $3::int) g`,
      [userId, done + 1, Math.min(done + 200_000, EXPORT_ROWS)],
    );
  await db.query('ANALYZE links');
  console.log(`seeded ${EXPORT_ROWS} links in ${((Date.now() - startedSeed) / 1000).toFixed(1)} s`);
  await caughtUp();
  // the same rows without the formula guard, as a bare COPY writes them
  const bare = inlineParams(linksExportSql(true), [userId, PUBLIC_URL]);
  const exported: Record<string, Awaited<ReturnType<typeof exports>>> = {};
  for (const mode of modes) {
    exported[mode.name] = await exports(mode, apiKey, bare);
    if (counters)
      counted[mode.name].push(await countedPass(mode, counters, apiKey, linkId, 'export'));
  }

  const results = {
    date: new Date().toISOString(),
    seconds: SECONDS,
    connections: CONNECTIONS,
    ...(pg
      ? {
          pg: 'replica',
          counted: COUNTED,
          modes: Object.fromEntries(
            modes.map((m) => [
              m.name,
              {
                range: range[m.name],
                export: exported[m.name],
                where: counted[m.name].flat(),
              },
            ]),
          ),
        }
      : { range: range.single, export: exported.single }),
  };
  await mkdir(join(__dirname, '..', 'bench-results'), { recursive: true });
  await writeFile(
    join(__dirname, '..', 'bench-results', pg ? 'stats-replica.json' : 'stats.json'),
    JSON.stringify(results, null, 2),
  );
}

runBench(main);
