/**
 * `npm run bench:create`: link creation (`POST /api/url/add`) under load, with the shared harness
 * (bench/lib/harness.ts): the built api runs pinned to core 0, wrk (10 connections: 10 concurrent
 * clients) pinned to core 1 sends CREATE_LINKS (default 2 000) creations per run and stops at the
 * last answer (after 1 000 creations of warm-up). Three scenarios, in turn over CREATE_ROUNDS
 * rounds (default 3), medians reported:
 *
 *   baseline    a bare node:http server, pinned like the api (bench/lib/baseline-server.ts,
 *               `insert`): parses the JSON body, one `INSERT INTO links … RETURNING id` through a
 *               `pg` Pool of the api's size, answers `{error, id, shorturl}`
 *   one user    every request with the same API key (the case a per-user lock would serialise)
 *   ten users   the keys of ten users in turn
 *
 * The users are on the Pro plan (no links cap: no row lock, no count). Every answer must be 200
 * and every link must exist afterwards. Reports links/s, p50/p99, CPU per link and wrk's headroom
 * for each, and the api/baseline ratios; fails when the generator was the bottleneck. Then
 * (valgrind installed, CREATE_INSTRUCTIONS not 0) the instructions per creation of the baseline
 * and of the api, one user (bench/lib/instructions.ts): the repeatable figure on a shared machine.
 * The goal (issue #34): ≥ 2× Kutt 3.2.3 side by side (562 links/s there, 10 concurrent clients,
 * one user).
 * CREATE_API_MAIN=<path of another build's dist/apps/api/main.js>: the same against another
 * commit's api (A/B). CREATE_COUNT=<warm>,<window>,<windows>: the counted creations (3000,1000,5). CREATE_PROFILE=<dir>: `node --cpu-prof` of the api. BENCH_REDIS=cluster:
 * against a 3-primary Redis Cluster of the run's own instead of REDIS_URL's server.
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

/** Kutt 3.2.3's links/s on this machine, side by side (issue #34). */
const KUTT = 562;

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

    let next = 0;
    const once = (url: string, pid: number, ks: string[], count: number) => {
      const requests = creations(ks, next, count);
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
    // warm-up: every key's owner cached, the code paths compiled (not counted)
    await once(base, server.pid as number, keys, 1000);
    await once(baselineUrl, baseline.pid as number, keys, 1000);

    const scenarios: Array<{
      name: string;
      url: string;
      pid: number;
      keys: string[];
      runs: RunResult[];
    }> = [
      {
        name: 'baseline',
        url: baselineUrl,
        pid: baseline.pid as number,
        keys: keys.slice(0, 1),
        runs: [],
      },
      { name: 'one user', url: base, pid: server.pid as number, keys: keys.slice(0, 1), runs: [] },
      { name: 'ten users', url: base, pid: server.pid as number, keys, runs: [] },
    ];
    console.log(
      `\n${LINKS} links per run via POST /api/url/add, ${CLIENTS} concurrent clients, ${ROUNDS} rounds; Redis: ${redis.mode}; api on core 0, wrk on core 1\n${HEADER}\n`,
    );
    for (let round = 0; round < ROUNDS; round++) {
      for (const s of scenarios) {
        const r = await once(s.url, s.pid, s.keys, LINKS);
        const non200 = Object.entries(r.tally)
          .filter(([status]) => status !== '200')
          .reduce((n, [, c]) => n + c, 0);
        if (non200) r.errors += non200;
        s.runs.push(r);
        console.log(line(s.name, r, 12).replace('req/s', 'links/s'));
      }
    }
    const [{ n }] = await db.query(
      `SELECT count(*)::int AS n FROM links WHERE url LIKE 'https://example.com/created/%'`,
    );
    const answered200 = scenarios
      .flatMap((s) => s.runs)
      .reduce((sum, r) => sum + (r.tally['200'] ?? 0), 0);

    ok = checkHeadroom(scenarios.map((s) => [s.name, s.runs]));
    console.log('\nmedians over rounds');
    for (const s of scenarios)
      console.log(line(s.name, medianOf(s.runs), 12).replace('req/s', 'links/s'));
    const errors = scenarios.flatMap((s) => s.runs).reduce((sum, r) => sum + r.errors, 0);
    console.log(
      `\nlinks in the database: ${n} (${answered200} answered 200 in the measured runs, plus the warm-up); errors ${errors}`,
    );
    const b = medianOf(scenarios[0].runs);
    console.log('\napi / baseline (medians)');
    for (const s of scenarios.slice(1)) {
      const m = medianOf(s.runs);
      console.log(
        `  ${s.name.padEnd(10)} links/s ${(m.rps / b.rps).toFixed(2)}×  p99 ${(m.p99Ms / b.p99Ms).toFixed(2)}×  CPU per link ${(m.serverUs / b.serverUs).toFixed(2)}× (${m.serverUs.toFixed(0)} against ${b.serverUs.toFixed(0)} µs)`,
      );
    }
    console.log('\ntargets');
    for (const s of scenarios.slice(1)) {
      const m = medianOf(s.runs);
      console.log(
        `  ${m.rps >= 2 * KUTT ? 'ok  ' : 'MISS'} ${s.name.padEnd(10)} ${m.rps.toFixed(0).padStart(5)} links/s  (≥ ${2 * KUTT}: 2× Kutt's ${KUTT}/s side by side; alone here, without Kutt beside it)  p99 ${m.p99Ms.toFixed(1)} ms`,
      );
    }
    if (errors) ok = false;
    if (server) await stop(server);
    server = undefined;
    if (baseline) await stop(baseline);
    baseline = undefined;
    await countAll(keys[0], owner.id as number);
  } finally {
    if (server) await stop(server);
    if (baseline) await stop(baseline);
    await db.destroy();
    await removeRun({ DATABASE_URL, REDIS_URL, REDIS_PREFIX });
    await redis.stop();
  }
  process.exitCode = ok ? 0 : 1;
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
