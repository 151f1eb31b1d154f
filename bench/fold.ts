/**
 * `npm run bench:fold`: whether the worker's fold keeps up with what one api core records
 * (docs/performance.md#the-fold-against-the-recording-rate). Goal: the fold folds at least twice
 * the visits a second of a worker core that the api records a second of an api core.
 *
 * A database, Redis prefix and storage folder of the run's own (dropped at the end); one user on a
 * paid plan (no monthly click cap: its visits take the recorder's aggregated path, as most do)
 * with FOLD_BENCH_LINKS plain links (default 10 000). Then FOLD_BENCH_ROUNDS rounds (default 3),
 * each:
 *
 *   recording  the built api pinned to core 0 (its in-process link cache on, as deployed), wrk
 *              pinned to core 1, 50 connections, FOLD_BENCH_SECONDS (default 10) of redirects
 *              over every link with the visitor mix of bench:redirect's "mixed visitors" (four
 *              browsers, eight addresses, four languages: every visit counted). No worker runs,
 *              so the visits wait in Redis. What one api core records a second: 1 / the api's CPU
 *              per request.
 *   folding    the api idle, the production worker module in this process (its schedulers out
 *              of the way), pinned to core 0, runs StatsFold.fold until nothing is left; its CPU
 *              time and that of every Postgres and Redis process are measured around it. What
 *              one worker core folds a second: the visits / the worker's CPU time.
 *
 * Every visit must be folded once: each round folds what wrk counted (plus at most one a
 * connection, answered after wrk stopped counting), and the links' totals in Postgres must equal
 * what the fold reported. Results on stdout and in
 * bench-results/fold.json.
 */
import 'reflect-metadata';

import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import {
  checkHeadroom,
  ensureWrk,
  HEADER,
  line,
  median,
  RunResult,
  SERVER_CORE,
  spawnApi,
  stop,
  storesCpuUs,
  storesSince,
  waitHealthy,
  runWrk,
  WrkRequest,
} from './lib/harness';
import { freePort, removeRun, RUN, runBench, runEnvironment } from './lib/run';
import { visitorHeaders } from './lib/visitors';

const LINKS = Number(process.env.FOLD_BENCH_LINKS ?? 10_000);
const SECONDS = Number(process.env.FOLD_BENCH_SECONDS ?? 10);
const ROUNDS = Number(process.env.FOLD_BENCH_ROUNDS ?? 3);
const CONNECTIONS = 50;
/** Requests in wrk's script at most (one per link when there are more links: FOLD_BENCH_LINKS ≤ 30 000). */
const MAX_REQUESTS = 20_000;
const GOAL = 2;
const HOST = 'short.bench';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const alias = (i: number) => `f${String(i).padStart(6, '0')}`;

/** Pins every thread of this process to `cores` (`taskset -a -p`). */
function pinSelf(cores: string): void {
  const r = spawnSync('taskset', ['-a', '-p', '-c', cores, String(process.pid)], {
    stdio: 'ignore',
  });
  if (r.status !== 0) throw new Error(`taskset -a -p -c ${cores} ${process.pid} failed`);
}

/** CPU time of this process so far (user and system), µs. */
const selfCpuUs = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};

interface Round {
  recording: RunResult;
  visits: number;
  folded: number;
  /** links folded (each with its day's visits) */
  linkDays: number;
  foldSeconds: number;
  foldCpuUs: number;
  foldStoresUs: number;
  /** visits one api core records a second */
  recordRate: number;
  /** visits one worker core folds a second */
  foldRate: number;
}

async function main(): Promise<void> {
  ensureWrk();
  if (LINKS > 30_000)
    throw new Error('FOLD_BENCH_LINKS: at most 30 000 (one wrk script request each)');
  const storage = mkdtempSync(join(tmpdir(), 'lm-fold-bench-'));
  const env = runEnvironment('fb', storage, {
    PUBLIC_URL: `http://${HOST}`,
    // the bench folds; the worker's own schedulers stay out of the way
    STATS_FOLD_SECONDS: '3600',
    SNAPSHOT_SECONDS: '0',
  });
  // the apps' modules read their config when they load: imported once the environment is set
  const { runMigrations } = await import('../libs/database/src/data-source');
  const { createWorker } = await import('../apps/worker/src/bootstrap');
  const { StatsFold } = await import('../libs/stats/src/fold/stats-fold');
  const { DataSource } = await import('typeorm');

  await runMigrations(env.DATABASE_URL);
  const worker = await createWorker({ logger: false });
  await worker.init();
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  let api: ReturnType<typeof spawnApi> | undefined;
  try {
    const db = worker.get(DataSource);
    const fold = worker.get(StatsFold);
    const [user] = await db.query(
      `INSERT INTO users (email, username, password_hash, plan_id, api_key_hash, api_key_enc)
       SELECT $1 || '@example.com', $1, 'x', id, md5(random()::text) || md5(random()::text), 'x'
         FROM plans WHERE NOT free ORDER BY id LIMIT 1 RETURNING id`,
      [`fold${RUN}`],
    );
    await db.query(
      `INSERT INTO links (user_id, alias, url)
       SELECT $1, 'f' || lpad(i::text, 6, '0'), 'https://example.com/landing/' || i
         FROM generate_series(0, $2 - 1) AS i`,
      [user.id, LINKS],
    );

    api = spawnApi({ ...env, PORT: String(port) });
    await waitHealthy(base, 120_000, api);
    const pids = [api.pid as number];
    // every link in turn, as many times as make ~20 000 requests, each request the next visitor
    // of the mix (a link sees as many visitors as passes): wrk's Lua takes at most ~65 000
    // constants, each request's headers being one
    const passes = Math.max(1, Math.floor(MAX_REQUESTS / LINKS));
    const requests: WrkRequest[] = Array.from({ length: LINKS * passes }, (_, i) => ({
      path: `/${alias(i % LINKS)}`,
      headers: visitorHeaders(i),
    }));
    const script = { headers: { Host: HOST }, requests, histogram: true };
    /** Folds until nothing is left: the clicks and the link-days folded. */
    const foldAll = async () => {
      let clicks = 0;
      let links = 0;
      for (;;) {
        const r = await fold.fold();
        clicks += r.clicks;
        links += r.links;
        if (!r.links) return { clicks, links };
      }
    };
    // warm-up: one pass over the links (each read from Postgres into the api's caches), then 2 s
    // of load (its code compiled); what it recorded folded
    await runWrk({
      url: base,
      connections: 10,
      seconds: 300,
      script: { ...script, limit: LINKS },
      serverPids: pids,
    });
    await runWrk({ url: base, connections: CONNECTIONS, seconds: 2, script, serverPids: pids });
    await sleep(1500);
    const warmed = (await foldAll()).clicks;

    const rounds: Round[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const recording = await runWrk({
        url: base,
        connections: CONNECTIONS,
        seconds: SECONDS,
        script,
        serverPids: pids,
      });
      // the api writes what it holds every STATS_FLUSH_MS (500 ms)
      await sleep(1500);
      pinSelf(String(SERVER_CORE));
      const stores0 = storesCpuUs();
      const cpu0 = selfCpuUs();
      const t0 = performance.now();
      const { clicks: folded, links: linkDays } = await foldAll();
      const foldSeconds = (performance.now() - t0) / 1000;
      const foldCpuUs = selfCpuUs() - cpu0;
      const foldStoresUs = storesSince(stores0);
      pinSelf('0,1');
      const visits = recording.requests - recording.errors;
      const r: Round = {
        recording,
        visits,
        folded,
        linkDays,
        foldSeconds,
        foldCpuUs,
        foldStoresUs,
        recordRate: 1e6 / recording.serverUs,
        foldRate: folded / (foldCpuUs / 1e6),
      };
      rounds.push(r);
      console.log(`\nround ${round}`);
      console.log(HEADER);
      console.log(line('recording (api, core 0)', recording));
      console.log(
        `folding (worker, core 0)       ${folded} visits of ${linkDays} links in ${foldSeconds.toFixed(2)} s: ` +
          `worker ${(foldCpuUs / folded).toFixed(2)} µs/visit (${Math.round(foldCpuUs / linkDays)} µs/link), ` +
          `stores ${(foldStoresUs / folded).toFixed(2)} µs/visit (${Math.round(foldStoresUs / linkDays)} µs/link)`,
      );
      console.log(
        `  one api core records ${Math.round(r.recordRate)} visits/s; one worker core folds ` +
          `${Math.round(r.foldRate)} visits/s: ${(r.foldRate / r.recordRate).toFixed(2)}×`,
      );
      // wrk counts the answers within its run; up to one a connection more was recorded
      if (folded < visits || folded > visits + CONNECTIONS)
        throw new Error(`round ${round}: ${visits} visits answered, ${folded} folded`);
    }

    const [{ clicks }] = await db.query(
      `SELECT coalesce(sum(t.clicks), 0)::bigint AS clicks
         FROM link_stats_total t JOIN links l ON l.id = t.link_id WHERE l.user_id = $1`,
      [user.id],
    );
    const folded = warmed + rounds.reduce((n, r) => n + r.folded, 0);
    if (Number(clicks) !== folded)
      throw new Error(`the links' totals say ${clicks} clicks, the fold folded ${folded}`);

    const ratio = median(rounds.map((r) => r.foldRate / r.recordRate));
    console.log(
      `\nmedians over ${ROUNDS} round(s): one api core records ${Math.round(median(rounds.map((r) => r.recordRate)))} visits/s ` +
        `(${median(rounds.map((r) => r.recording.serverUs)).toFixed(1)} µs/visit, ${Math.round(median(rounds.map((r) => r.recording.rps)))} req/s), ` +
        `one worker core folds ${Math.round(median(rounds.map((r) => r.foldRate)))} visits/s ` +
        `(${median(rounds.map((r) => r.foldCpuUs / r.folded)).toFixed(2)} µs/visit; Postgres and Redis ` +
        `${median(rounds.map((r) => r.foldStoresUs / r.folded)).toFixed(2)} µs/visit more)`,
    );
    console.log(
      `fold / recording: ${ratio.toFixed(2)}× (rounds ${rounds.map((r) => (r.foldRate / r.recordRate).toFixed(2)).join(', ')}), goal ≥ ${GOAL}: ${ratio >= GOAL ? 'met' : 'MISSED'}`,
    );
    console.log(
      `every visit folded once: ${folded} folded, ${clicks} in the links' totals; ` +
        `${rounds.reduce((n, r) => n + r.visits, 0)} answered within wrk's runs`,
    );
    const headroomOk = checkHeadroom([['recording', rounds.map((r) => r.recording)]]);
    if (!headroomOk) process.exitCode = 1;

    await mkdir('bench-results', { recursive: true });
    await writeFile(
      join('bench-results', 'fold.json'),
      JSON.stringify(
        {
          links: LINKS,
          seconds: SECONDS,
          rounds: rounds.map((r) => ({
            visits: r.visits,
            recordingRps: r.recording.rps,
            apiUsPerVisit: r.recording.serverUs,
            linkDays: r.linkDays,
            foldSeconds: r.foldSeconds,
            workerUsPerVisit: r.foldCpuUs / r.folded,
            storesUsPerVisit: r.foldStoresUs / r.folded,
            ratio: r.foldRate / r.recordRate,
          })),
          ratio,
          goal: GOAL,
        },
        null,
        2,
      ),
    );
  } finally {
    if (api) await stop(api);
    await worker.close();
    await removeRun(env);
  }
}

runBench(main);
