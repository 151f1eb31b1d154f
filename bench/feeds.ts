/**
 * `npm run bench:feeds`: the threat feeds at size, with the shared harness (bench/lib/harness.ts).
 * A synthetic feed of FEEDS_ENTRIES entries (default 1 000 000: half bare hosts, half exact URLs,
 * OpenPhish's one-entry-a-line format) is written to a file and loaded by the built worker, as in
 * production (THREAT_FEEDS; the worker's load time and the Redis memory the feed holds are
 * reported: `used_memory` before and after). Then two measures, in the same run:
 *
 *   matching    FEEDS_URLS URLs (default 10 000; 1 in 10 on a feed host or URL, the rest not)
 *               matched in this process against the loaded feed: batched as the worker's re-scan
 *               does (ThreatFeeds.matchMany, RESCAN_BATCH URLs a call: one HMGET per feed), and
 *               one by one as url/add does (ThreatFeeds.match, 10 in flight); URLs/s of each, the
 *               flagged count checked against the expected one, this process's heap and RSS
 *               before and after
 *   url/add     the built api pinned to core 0, wrk (10 connections) pinned to core 1 sending
 *               FEEDS_LINKS (default 2 000) creations per run, after 500 of warm-up: an api with
 *               THREAT_FEEDS naming the loaded feed (every destination looked up in it) and one
 *               without, each started afresh on the same database and Redis, in turn over
 *               FEEDS_ROUNDS rounds (default 3); medians, and the ratio with / without (target
 *               ≥ 0.9×); FEEDS_ROUNDS=0 leaves this out
 *   instructions  (valgrind installed, FEEDS_INSTRUCTIONS not 0) the instructions per creation of
 *               the same two apis, each started afresh under callgrind (bench/lib/instructions.ts):
 *               FEEDS_COUNT_WARM creations uncounted (default 3 000), then 5 windows of
 *               FEEDS_COUNT_WINDOW (default 1 000) over FEEDS_COUNT_CONNECTIONS connections
 *               (default 10; fewer when a busy machine makes the api under valgrind so slow that
 *               its Redis or Postgres calls time out); the quietest window and the median of the 5,
 *               and the ratio without / with (the rate ratio the instructions predict; the
 *               repeatable figure on a shared machine, where wall-clock moves by 10-20 %)
 *
 * Every creation must answer 200 (none of the created URLs is on the feed). Small runs for a
 * check: FEEDS_ENTRIES=20000 FEEDS_URLS=1000 FEEDS_LINKS=300 FEEDS_ROUNDS=1; instructions only:
 * FEEDS_ROUNDS=0 FEEDS_COUNT_WARM=1000 FEEDS_COUNT_WINDOW=300. FEEDS_API_MAIN=<path of another
 * build's dist/apps/api/main.js>: the same against another commit's api (A/B).
 */
import { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { DataSource } from 'typeorm';

import { loadConfig } from '../libs/config/src/app-config';
import { runMigrations } from '../libs/database/src/data-source';
import { ThreatFeeds } from '../libs/links/src/threat-feeds/threat-feeds';
import { RedisService } from '../libs/redis/src/redis.service';
import {
  checkHeadroom,
  ensureWrk,
  HEADER,
  line,
  medianOf,
  RunResult,
  runWrk,
  SERVER_CORE,
  spawnPinned,
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
import {
  adminClient,
  benchRedis,
  createUsers,
  freePort,
  removeRun,
  rssMb,
  runBench,
  runEnvironment,
  startBuilt,
} from './lib/run';

const ENTRIES = Number(process.env.FEEDS_ENTRIES ?? 1_000_000);
const URLS = Number(process.env.FEEDS_URLS ?? 10_000);
const LINKS = Number(process.env.FEEDS_LINKS ?? 2000);
const ROUNDS = Number(process.env.FEEDS_ROUNDS ?? 3);
/** The counted creations (instructions): uncounted warm-up, then the windows. */
const COUNT = {
  warm: Number(process.env.FEEDS_COUNT_WARM ?? 3000),
  window: Number(process.env.FEEDS_COUNT_WINDOW ?? 1000),
  windows: 5,
  connections: Number(process.env.FEEDS_COUNT_CONNECTIONS ?? 10),
  status: 200,
};
const CLIENTS = 10;
/** As the worker's re-scan (apps/worker/src/threat-feeds/link-rescan.ts). */
const RESCAN_BATCH = 2000;
const FEED = 'benchfeed';
const ADMIN_KEY = `adminfeedskey${process.pid}`.padEnd(40, 'x');
const API_MAIN =
  process.env.FEEDS_API_MAIN ?? join(__dirname, '..', 'dist', 'apps', 'api', 'main.js');

/** The feed's i-th entry: even ones a bare host, odd ones an exact URL on another host. */
const entry = (i: number) =>
  i % 2 === 0 ? `bad${i}.feed-bench.test` : `https://host${i}.feed-bench.test/path/${i}?id=${i}`;

/** The i-th URL matched: every 10th one on the feed (a host entry's subdomain, or a URL entry). */
function probe(i: number): { url: string; flagged: boolean } {
  if (i % 10 !== 0) return { url: `https://clean${i}.example.org/page/${i}`, flagged: false };
  const e = (i * 7919) % ENTRIES;
  return e % 2 === 0
    ? { url: `https://www.${entry(e)}/login`, flagged: true }
    : { url: entry(e), flagged: true };
}

/** Redis `used_memory` (bytes) of the server (the first primary's for a cluster). */
async function usedMemory(redis: RedisService): Promise<number> {
  const info = await redis.client.info('memory');
  return Number(/used_memory:(\d+)/.exec(info)?.[1] ?? 0);
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

async function main(): Promise<void> {
  ensureWrk();
  const storage = mkdtempSync(join(tmpdir(), 'bench-feeds-'));
  const feedFile = join(storage, 'feed.txt');
  const bench = await benchRedis();
  const env = runEnvironment('feeds', storage, {
    ...bench.env,
    DOMAIN_VERIFY: 'off',
    // the api runs with NODE_ENV=production below (its secret: 32 characters at least)
    APP_SECRET: 'feeds-bench-secret-feeds-bench-secret',
    ADMIN_EMAIL: 'feeds-admin@example.com',
    ADMIN_API_KEY: ADMIN_KEY,
    THREAT_FEEDS: `${FEED}=${feedFile}`,
  });
  const without = { ...env, THREAT_FEEDS: '' };
  await runMigrations(env.DATABASE_URL);
  const config = loadConfig(env);
  const redis = new RedisService(config);
  let worker: ChildProcess | undefined;
  let api: ChildProcess | undefined;
  let ok = true;
  try {
    // ---------------------------------------------------------------- the feed, loaded by the worker
    const lines = ['# feed bench (OpenPhish format: one entry a line)'];
    for (let i = 0; i < ENTRIES; i++) lines.push(entry(i));
    writeFileSync(feedFile, `${lines.join('\n')}\n`);
    const before = await usedMemory(redis);
    worker = await startBuilt('worker', env, 'worker started');
    const feeds = new ThreatFeeds(redis, config);
    let state = (await feeds.states())[0];
    const waitUntil = Date.now() + 30 * 60_000;
    while (!state.loadedAt && !state.error && Date.now() < waitUntil) {
      await new Promise((r) => setTimeout(r, 500));
      state = (await feeds.states())[0];
    }
    if (!state.loadedAt) throw new Error(`feed not loaded: ${state.error ?? 'timed out'}`);
    await stop(worker);
    worker = undefined;
    const loadMs = Date.parse(state.loadedAt) - Date.parse(state.attemptedAt!);
    console.log(
      `\nfeed: ${state.entries} entries (${state.format}), loaded by the worker in ${(loadMs / 1000).toFixed(1)} s; ` +
        `Redis used_memory +${mb((await usedMemory(redis)) - before)} (Redis: ${bench.mode})`,
    );

    // ---------------------------------------------------------------- matching
    const probes = Array.from({ length: URLS }, (_, i) => probe(i));
    const expected = probes.filter((p) => p.flagged).length;
    const heap0 = process.memoryUsage().heapUsed;
    const rss0 = await rssMb(process.pid);
    let t0 = performance.now();
    let flagged = 0;
    for (let i = 0; i < probes.length; i += RESCAN_BATCH)
      flagged += (await feeds.matchMany(probes.slice(i, i + RESCAN_BATCH).map((p) => p.url))).size;
    const batchedMs = performance.now() - t0;
    const heapBatched = process.memoryUsage().heapUsed;
    t0 = performance.now();
    let single = 0;
    let next = 0;
    await Promise.all(
      Array.from({ length: 10 }, async () => {
        while (next < probes.length) if (await feeds.match(probes[next++].url)) single++;
      }),
    );
    const singleMs = performance.now() - t0;
    const rss1 = await rssMb(process.pid);
    console.log(
      `\nmatching ${URLS} URLs against ${state.entries} entries (${expected} on the feed)\n` +
        `  batched (re-scan, ${RESCAN_BATCH} a call)  ${((URLS / batchedMs) * 1000).toFixed(0).padStart(8)} URLs/s  ${batchedMs.toFixed(0)} ms  flagged ${flagged}  heap ${mb(heap0)} → ${mb(heapBatched)}\n` +
        `  one by one (url/add, 10 in flight) ${((URLS / singleMs) * 1000).toFixed(0).padStart(8)} URLs/s  ${singleMs.toFixed(0)} ms  flagged ${single}\n` +
        `  this process's RSS ${rss0.toFixed(0)} → ${rss1.toFixed(0)} MB`,
    );
    if (flagged !== expected || single !== expected) {
      console.log(`MISMATCH: expected ${expected} flagged`);
      ok = false;
    }

    // ---------------------------------------------------------------- url/add with and without
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const start = async (withFeeds: boolean) => {
      const child = spawnPinned(SERVER_CORE, process.execPath, [API_MAIN], {
        env: { ...(withFeeds ? env : without), PORT: String(port), NODE_ENV: 'production' },
        stdio: ['ignore', 'ignore', 'inherit'],
      });
      await waitHealthy(base, 120_000, child);
      return child;
    };
    api = await start(false);
    const db = new DataSource({ type: 'postgres', url: env.DATABASE_URL });
    await db.initialize();
    const [pro] = await db.query(`SELECT id FROM plans WHERE name = 'Pro'`);
    await db.destroy();
    const [key] = await createUsers(
      adminClient(base, ADMIN_KEY),
      `feeds${process.pid}`,
      1,
      pro.id,
      'feeds-pass-1',
    );
    await stop(api);
    api = undefined;

    let n = 0;
    const creations = (count: number): WrkRequest[] =>
      Array.from({ length: count }, () => ({
        method: 'POST',
        path: '/api/url/add',
        headers: { Authorization: `Bearer ${key}` },
        body: JSON.stringify({ url: `https://example.com/feeds/${n++}?ref=bench` }),
      }));
    const once = (pid: number, count: number) =>
      runWrk({
        url: base,
        connections: CLIENTS,
        seconds: 600,
        script: {
          headers: { 'Content-Type': 'application/json' },
          requests: creations(count),
          limit: count,
          onResponse: 'local k = tostring(status); tally[k] = (tally[k] or 0) + 1',
        },
        serverPids: [pid],
      });
    const scenarios: Array<{ name: string; feeds: boolean; runs: RunResult[] }> = [
      { name: 'without', feeds: false, runs: [] },
      { name: 'with feeds', feeds: true, runs: [] },
    ];
    if (ROUNDS > 0) {
      console.log(
        `\n${LINKS} links per run via POST /api/url/add, ${CLIENTS} concurrent clients, ${ROUNDS} rounds; api on core 0, wrk on core 1\n${HEADER}\n`,
      );
      for (let round = 0; round < ROUNDS; round++)
        for (const s of scenarios) {
          api = await start(s.feeds);
          await once(api.pid as number, 500);
          const r = await once(api.pid as number, LINKS);
          const non200 = Object.entries(r.tally)
            .filter(([status]) => status !== '200')
            .reduce((sum, [, c]) => sum + c, 0);
          r.errors += non200;
          s.runs.push(r);
          console.log(line(s.name, r, 12).replace('req/s', 'links/s'));
          await stop(api);
          api = undefined;
        }
      if (!checkHeadroom(scenarios.map((s) => [s.name, s.runs]))) ok = false;
      console.log('\nmedians over rounds');
      for (const s of scenarios)
        console.log(line(s.name, medianOf(s.runs), 12).replace('req/s', 'links/s'));
      const errors = scenarios.flatMap((s) => s.runs).reduce((sum, r) => sum + r.errors, 0);
      const ratio = medianOf(scenarios[1].runs).rps / medianOf(scenarios[0].runs).rps;
      console.log(
        `\ntargets\n  ${ratio >= 0.9 ? 'ok  ' : 'MISS'} url/add with feeds loaded / without: ${ratio.toFixed(2)}× (≥ 0.9×); errors ${errors}`,
      );
      if (errors) ok = false;
    }

    // ---------------------------------------------------------------- instructions per creation
    if (process.env.FEEDS_INSTRUCTIONS !== '0') {
      if (!haveValgrind())
        console.log('\ninstructions per link: skipped (no valgrind; apt-get install valgrind)');
      else {
        console.log(
          `\ninstructions per link via POST /api/url/add (callgrind; user space only: the kernel's socket work is left out).\n` +
            `${COUNT.windows} windows of ${COUNT.window} creations after ${COUNT.warm} uncounted, ${COUNT.connections} connections; the quietest window is the figure (bench/lib/instructions.ts)`,
        );
        const headers = { 'Content-Type': 'application/json', Host: '127.0.0.1' };
        const total = COUNT.warm + COUNT.window * COUNT.windows;
        const counted: Counted[] = [];
        for (const s of scenarios) {
          const server = await startCounted(
            [API_MAIN],
            { ...(s.feeds ? env : without), PORT: String(port), NODE_ENV: 'production' },
            /api listening/,
            port,
          );
          try {
            await waitHealthy(base, 300_000, server.child);
            const c = await countInstructions(server, creations(total), headers, COUNT);
            counted.push(c);
            console.log(
              `${s.name.padEnd(10)} ${formatCount(c).padStart(22)} instructions/link   windows: ${formatWindows(c)}`,
            );
          } finally {
            await stopCounted(server);
          }
        }
        const [bare, fed] = counted;
        const quiet = bare.min / fed.min;
        const mid = bare.median / fed.median;
        console.log(
          `  ${quiet >= 0.9 ? 'ok  ' : 'MISS'} instructions without / with feeds: ${quiet.toFixed(3)}× quietest, ${mid.toFixed(3)}× median (≥ 0.9×); ` +
            `the feed check: +${((fed.min - bare.min) / 1000).toFixed(1)}k instructions/link quietest, +${((fed.median - bare.median) / 1000).toFixed(1)}k median`,
        );
      }
    }
  } finally {
    if (worker) await stop(worker);
    if (api) await stop(api);
    await redis.client.quit().catch(() => undefined);
    await removeRun({
      DATABASE_URL: env.DATABASE_URL,
      REDIS_URL: env.REDIS_URL,
      REDIS_PREFIX: env.REDIS_PREFIX,
    });
    rmSync(storage, { recursive: true, force: true });
    await bench.stop();
  }
  process.exitCode = ok ? 0 : 1;
}

runBench(main);
