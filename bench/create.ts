/**
 * `npm run bench:create`: link creation (`POST /api/url/add`) under load, with the shared harness
 * (bench/lib/harness.ts): the built api runs pinned to core 0, wrk (10 connections: 10 concurrent
 * clients) pinned to core 1 sends CREATE_LINKS (default 2 000) creations per run and stops at the
 * last answer (after 1 000 creations of warm-up per server). The scenarios, in turn over
 * CREATE_ROUNDS rounds (default 3), medians reported:
 *
 *   baseline        a bare node:http server, pinned like the api (bench/lib/baseline-server.ts,
 *                   `insert`): parses the JSON body, one `INSERT INTO links … RETURNING id`
 *                   through a `pg` Pool of the api's size, answers `{error, id, shorturl}`
 *   one user        every request with the same API key (the case a per-user lock would serialise)
 *   Kutt, one user  with CREATE_KUTT_DIR only: Kutt 3.2.3 on Postgres and Redis, pinned to the
 *                   api's core, its one user's key, `POST /api/v2/links` (bench/lib/kutt.ts)
 *   ten users       the keys of ten users in turn
 *
 * The users are on the Pro plan (no links cap: no row lock, no count). Every answer must be 200
 * (Kutt's 201) and every link must exist afterwards, in Kutt's database too. Reports links/s,
 * p50/p99, CPU per link and wrk's headroom for each, the api/baseline ratios and the api/Kutt
 * ratios (median of the rounds' ratios) with the goal of issue #34: one user ≥ 2× Kutt side by
 * side. Without CREATE_KUTT_DIR it says Kutt was not run. Fails when the generator was the
 * bottleneck or a creation failed. Then (valgrind installed, CREATE_INSTRUCTIONS not 0) the
 * instructions per creation of the baseline and of the api, one user (bench/lib/instructions.ts):
 * the repeatable figure on a shared machine.
 * CREATE_KUTT_DIR=<Kutt 3.2.3's source, `npm ci --omit=dev` done>: run Kutt side by side (see
 * docs/performance.md, "Link creation", for its setup). CREATE_API_MAIN=<path of another build's
 * dist/apps/api/main.js>: the same against another commit's api (A/B).
 * CREATE_COUNT=<warm>,<window>,<windows>: the counted creations (3000,1000,5).
 * CREATE_PROFILE=<dir>: `node --cpu-prof` of the api. BENCH_REDIS=cluster: against a 3-primary
 * Redis Cluster of the run's own instead of REDIS_URL's server (Kutt keeps REDIS_URL's server).
 */
import { ChildProcess } from 'node:child_process';
import { join } from 'node:path';

import { DataSource } from 'typeorm';

import { runMigrations } from '../libs/database/src/data-source';
import {
  checkHeadroom,
  compiled,
  ensureWrk,
  HEADER,
  line,
  median,
  medianOf,
  RunResult,
  runWrk,
  SERVER_CORE,
  spawnPinned,
  startPinnedServer,
  stop,
  waitHealthy,
  WrkRequest,
} from './lib/harness';
import {
  Counted,
  countInstructions,
  formatCount,
  formatWindows,
  haveValgrind,
  startCounted,
  stopCounted,
} from './lib/instructions';
import { Kutt, kuttCreations, kuttLinks, removeKutt, startKutt } from './lib/kutt';
import { adminClient, benchRedis, createUsers, freePort, removeRun, runBench } from './lib/run';

const LINKS = Number(process.env.CREATE_LINKS ?? 2000);
const ROUNDS = Number(process.env.CREATE_ROUNDS ?? 3);
const CLIENTS = 10;
const run = `${process.pid}`;
const DATABASE_URL = `postgres://postgres@127.0.0.1:5432/linkmgmt_create_${run}`;
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const REDIS_PREFIX = `create${run}`;
const ADMIN_KEY = `admincreatekey${run}`.padEnd(40, 'x');
const API_MAIN =
  process.env.CREATE_API_MAIN ?? join(__dirname, '..', 'dist', 'apps', 'api', 'main.js');
/** Kutt 3.2.3's source with its production dependencies: run side by side when set. */
const KUTT_DIR = process.env.CREATE_KUTT_DIR;
/** Creations of the warm-up, per server. */
const WARM_UP = 1000;
/**
 * The counted creations (instructions): uncounted warm-up, then the windows.
 * CREATE_COUNT=<warm>,<window>,<windows> changes them (smaller: quicker and noisier).
 */
const [WARM, WINDOW, WINDOWS] = (process.env.CREATE_COUNT ?? '3000,1000,5').split(',').map(Number);
const COUNT = { warm: WARM, window: WINDOW, windows: WINDOWS, connections: CLIENTS, status: 200 };

/** The api's environment (and the baseline's: the same database, pool size, public URL). */
function apiEnv(port: number): NodeJS.ProcessEnv {
  return {
    ...process.env,
    NODE_ENV: 'production',
    APP_SECRET: 'create-bench-secret-create-bench-secret',
    PORT: String(port),
    DATABASE_URL,
    REDIS_URL,
    REDIS_PREFIX,
    PUBLIC_URL: 'http://create.test',
    DOMAIN_VERIFY: 'off',
    LOG_LEVEL: 'warn',
    RATE_LIMIT: '1000000',
    ADMIN_EMAIL: 'create-admin@example.com',
    ADMIN_API_KEY: ADMIN_KEY,
  };
}

/** The baseline's script (bench/lib/baseline-server.ts, transpiled); its argument is the kind. */
function baselineScript(): string {
  return compiled({
    'baseline-server': join(__dirname, 'lib', 'baseline-server.ts'),
    'batched-get': join(__dirname, '..', 'libs', 'redis', 'src', 'batched-get.ts'),
    'key-slot': join(__dirname, '..', 'libs', 'redis', 'src', 'key-slot.ts'),
    'redis-client': join(__dirname, '..', 'libs', 'redis', 'src', 'redis-client.ts'),
    'slot-routes': join(__dirname, '..', 'libs', 'redis', 'src', 'slot-routes.ts'),
  });
}

/** `count` creations, numbered from `from`, with `keys` in turn. */
function creations(keys: string[], from: number, count: number): WrkRequest[] {
  return Array.from({ length: count }, (_, i) => ({
    method: 'POST',
    path: '/api/url/add',
    headers: { Authorization: `Bearer ${keys[i % keys.length]}` },
    body: JSON.stringify({ url: `https://example.com/created/${from + i}?ref=bench` }),
  }));
}

/** Lua: counts answers by status (a creation must answer 200). */
const TALLY_STATUS = 'local k = tostring(status); tally[k] = (tally[k] or 0) + 1';

async function main(): Promise<void> {
  ensureWrk();
  const redis = await benchRedis();
  await runMigrations(DATABASE_URL);
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  let server: ChildProcess | undefined;
  let baseline: ChildProcess | undefined;
  let kutt: Kutt | undefined;
  const db = new DataSource({ type: 'postgres', url: DATABASE_URL });
  await db.initialize();
  let ok = true;
  try {
    server = spawnPinned(
      SERVER_CORE,
      process.execPath,
      [
        // CREATE_PROFILE=<dir>: a V8 CPU profile of the api's whole life, written when it stops
        ...(process.env.CREATE_PROFILE
          ? ['--cpu-prof', `--cpu-prof-dir=${process.env.CREATE_PROFILE}`]
          : []),
        // CREATE_API_MAIN: another build of the api (an A/B against an older commit's dist)
        API_MAIN,
      ],
      { env: apiEnv(port), stdio: ['ignore', 'ignore', 'inherit'] },
    );
    await waitHealthy(base, 120_000, server);

    const [pro] = await db.query(`SELECT id FROM plans WHERE name = 'Pro'`);
    const api = adminClient(base, ADMIN_KEY);
    const keys = await createUsers(api, `create${run}`, 10, pro.id, 'create-pass-1');

    const [owner] = await db.query(`SELECT id FROM users WHERE email = $1`, [
      `create${run}u0@example.com`,
    ]);
    const started = await startPinnedServer(
      [baselineScript(), 'insert'],
      { ...apiEnv(port), BASELINE_USER: String(owner.id) },
      /listening (\d+)/,
    );
    baseline = started.child;
    const baselineUrl = `http://127.0.0.1:${started.match[1]}`;
    if (KUTT_DIR) kutt = await startKutt(KUTT_DIR, run, await freePort(), REDIS_URL);

    let next = 0;
    const once = (url: string, pid: number, make: Make, count: number) => {
      const requests = make(next, count);
      next += count;
      return runWrk({
        url,
        connections: CLIENTS,
        seconds: 600,
        script: {
          headers: { 'Content-Type': 'application/json' },
          requests,
          limit: count,
          onResponse: TALLY_STATUS,
        },
        serverPids: [pid],
      });
    };
    const versus = kutt && kuttScenario(kutt);
    // warm-up: every key's owner cached, the code paths compiled (not counted)
    await once(base, server.pid as number, ours(keys), WARM_UP);
    await once(baselineUrl, baseline.pid as number, ours(keys), WARM_UP);
    const kuttWarm = versus && (await once(versus.url, versus.pid, versus.make, WARM_UP));

    const scenarios: Scenario[] = [
      {
        name: 'baseline',
        url: baselineUrl,
        pid: baseline.pid as number,
        make: ours(keys.slice(0, 1)),
        status: '200',
        runs: [],
      },
      {
        name: 'one user',
        url: base,
        pid: server.pid as number,
        make: ours(keys.slice(0, 1)),
        status: '200',
        api: true,
        runs: [],
      },
      // right after the api's one user: the pair compared, as close in time as they can be
      ...(versus ? [versus] : []),
      {
        name: 'ten users',
        url: base,
        pid: server.pid as number,
        make: ours(keys),
        status: '200',
        api: true,
        runs: [],
      },
    ];
    console.log(
      `\n${LINKS} links per run via POST /api/url/add${kutt ? ' (Kutt: POST /api/v2/links)' : ''}, ${CLIENTS} concurrent clients, ${ROUNDS} rounds; Redis: ${redis.mode}; api${kutt ? ' and Kutt' : ''} on core 0, wrk on core 1\n${HEADER}\n`,
    );
    for (let round = 0; round < ROUNDS; round++) {
      for (const s of scenarios) {
        const r = await once(s.url, s.pid, s.make, LINKS);
        r.errors += failures(r, s.status);
        s.runs.push(r);
        console.log(line(s.name, r, 14).replace('req/s', 'links/s'));
      }
    }
    const [{ n }] = await db.query(
      `SELECT count(*)::int AS n FROM links WHERE url LIKE 'https://example.com/created/%'`,
    );
    const answered = (s: Scenario) => s.runs.reduce((sum, r) => sum + (r.tally[s.status] ?? 0), 0);
    const answered200 = scenarios
      .filter((s) => s !== versus)
      .reduce((sum, s) => sum + answered(s), 0);

    ok = checkHeadroom(scenarios.map((s) => [s.name, s.runs]));
    console.log('\nmedians over rounds');
    for (const s of scenarios)
      console.log(line(s.name, medianOf(s.runs), 14).replace('req/s', 'links/s'));
    const errors = scenarios.flatMap((s) => s.runs).reduce((sum, r) => sum + r.errors, 0);
    console.log(
      `\nlinks in the database: ${n} (${answered200} answered 200 in the measured runs, plus the warm-up); errors ${errors}`,
    );
    const b = medianOf(scenarios[0].runs);
    console.log('\napi / baseline (medians)');
    for (const s of scenarios.filter((x) => x.api)) {
      const m = medianOf(s.runs);
      console.log(
        `  ${s.name.padEnd(10)} links/s ${(m.rps / b.rps).toFixed(2)}×  p99 ${(m.p99Ms / b.p99Ms).toFixed(2)}×  CPU per link ${(m.serverUs / b.serverUs).toFixed(2)}× (${m.serverUs.toFixed(0)} against ${b.serverUs.toFixed(0)} µs)`,
      );
    }
    if (kutt && versus && kuttWarm) {
      // wrk stops at the last counted answer: the few creations then in flight are stored too
      const kuttN = await kuttLinks(kutt);
      const created = answered(versus) + (kuttWarm.tally['201'] ?? 0);
      const warmFailed = failures(kuttWarm, '201');
      console.log(
        `links in Kutt's database: ${kuttN} (${created} answered 201, warm-up included); errors in its warm-up ${warmFailed}`,
      );
      if (kuttN < created || warmFailed > 0) ok = false;
      compareKutt(scenarios, versus);
    } else
      console.log(
        '\ntarget: Kutt 3.2.3 was not run (CREATE_KUTT_DIR unset): no side-by-side figure, the goal (≥ 2× Kutt, issue #34) is not checked',
      );
    if (errors) ok = false;
    if (server) await stop(server);
    server = undefined;
    if (baseline) await stop(baseline);
    baseline = undefined;
    if (kutt) await removeKutt(kutt);
    kutt = undefined;
    await countAll(keys[0], owner.id as number);
  } finally {
    if (server) await stop(server);
    if (baseline) await stop(baseline);
    if (kutt) await removeKutt(kutt);
    await db.destroy();
    await removeRun({ DATABASE_URL, REDIS_URL, REDIS_PREFIX });
    await redis.stop();
  }
  process.exitCode = ok ? 0 : 1;
}

/** Answers of a run with another status than `status` (a creation's). */
const failures = (r: RunResult, status: string) =>
  Object.entries(r.tally)
    .filter(([s]) => s !== status)
    .reduce((n, [, c]) => n + c, 0);

/** A scenario's requests: `count` creations numbered from `from`. */
type Make = (from: number, count: number) => WrkRequest[];

/** Creations through the api's (or the baseline's) `/api/url/add`, with `keys` in turn. */
const ours =
  (keys: string[]): Make =>
  (from, count) =>
    creations(keys, from, count);

/** A server and the requests of one scenario, with the status its creations answer. */
interface Scenario {
  name: string;
  url: string;
  pid: number;
  make: Make;
  status: string;
  /** One of the api's (compared with the baseline and Kutt). */
  api?: boolean;
  runs: RunResult[];
}

/** Kutt's one user through its own API (bench/lib/kutt.ts): a creation answers 201. */
function kuttScenario(kutt: Kutt): Scenario {
  return {
    name: 'Kutt, one user',
    url: kutt.url,
    pid: kutt.child.pid as number,
    make: (from, count) => kuttCreations(kutt.key, from, count),
    status: '201',
    runs: [],
  };
}

/**
 * The api against Kutt run in the same rounds: the median of the rounds' ratios (each round's
 * runs follow one another), and the goal of issue #34, ≥ 2× Kutt's links/s for one user.
 */
function compareKutt(scenarios: Scenario[], kutt: Scenario): void {
  const k = medianOf(kutt.runs);
  const ratio = (s: Scenario, f: (r: RunResult) => number) =>
    median(s.runs.map((r, i) => f(r) / f(kutt.runs[i])));
  console.log("\napi / Kutt 3.2.3 (median of the rounds' ratios)");
  for (const s of scenarios.filter((x) => x.api))
    console.log(
      `  ${s.name.padEnd(10)} links/s ${ratio(s, (r) => r.rps).toFixed(2)}×  p99 ${ratio(s, (r) => r.p99Ms).toFixed(2)}×  CPU per link ${ratio(s, (r) => r.serverUs).toFixed(2)}× (${medianOf(s.runs).serverUs.toFixed(0)} against ${k.serverUs.toFixed(0)} µs)`,
    );
  const one = scenarios.find((s) => s.name === 'one user') as Scenario;
  const r = ratio(one, (x) => x.rps);
  console.log(
    `\ntarget\n  ${r >= 2 ? 'ok  ' : 'MISS'} one user ${medianOf(one.runs).rps.toFixed(0)} links/s, Kutt ${k.rps.toFixed(0)} links/s side by side: ${r.toFixed(2)}× (goal ≥ 2×, issue #34)`,
  );
}

/**
 * Instructions per creation (callgrind) of the baseline and of the api (one user), each started
 * afresh under valgrind against the same database: the repeatable figures beside the wall-clock
 * ones. Skipped without valgrind or with CREATE_INSTRUCTIONS=0.
 */
async function countAll(key: string, owner: number): Promise<void> {
  if (process.env.CREATE_INSTRUCTIONS === '0') return;
  if (!haveValgrind()) {
    console.log('\ninstructions per link: skipped (no valgrind; apt-get install valgrind)');
    return;
  }
  console.log(
    `\ninstructions per link (callgrind; user space only: the kernel's socket work is left out).\n` +
      `${COUNT.windows} windows of ${COUNT.window} creations after ${COUNT.warm} uncounted, ${CLIENTS} connections; the quietest window is the figure (bench/lib/instructions.ts)`,
  );
  const headers = { 'Content-Type': 'application/json', Host: '127.0.0.1' };
  let from = 10_000_000;
  const requests = (n: number) => {
    const r = creations([key], from, n);
    from += n;
    return r;
  };
  const total = COUNT.warm + COUNT.window * COUNT.windows;
  let base: Counted | undefined;
  const show = (name: string, c: Counted) =>
    console.log(
      `${name.padEnd(10)} ${formatCount(c).padStart(22)} instructions/link${base && c !== base ? `  ${(c.min / base.min).toFixed(2)}× baseline` : ''}   windows: ${formatWindows(c)}`,
    );
  const port = await freePort();
  const env = apiEnv(port);
  const b = await startCounted(
    [baselineScript(), 'insert'],
    { ...env, BASELINE_USER: String(owner) },
    /listening (\d+)/,
  );
  try {
    base = await countInstructions(b, requests(total), headers, COUNT);
    show('baseline', base);
  } finally {
    await stopCounted(b);
  }
  const api = await startCounted([API_MAIN], env, /api listening/, port);
  try {
    await waitHealthy(`http://127.0.0.1:${port}`, 120_000, api.child);
    show('one user', await countInstructions(api, requests(total), headers, COUNT));
  } finally {
    await stopCounted(api);
  }
}

runBench(main);
