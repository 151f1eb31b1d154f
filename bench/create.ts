/**
 * `npm run bench:create`: link creation (`POST /api/url/add`) under load, with the shared harness
 * (bench/lib/harness.ts): the built api runs pinned to core 0, wrk (10 connections: 10 concurrent
 * clients) pinned to core 1 sends CREATE_LINKS (default 2 000) creations per run and stops at the
 * last answer (after 1 000 creations of warm-up). Two scenarios, alternating over CREATE_ROUNDS rounds (default 3), medians reported:
 *
 *   one user    every request with the same API key (the case a per-user lock would serialise)
 *   ten users   the keys of ten users in turn
 *
 * The users are on the Pro plan (no links cap: no row lock, no count). Every answer must be 200
 * and every link must exist afterwards. Reports links/s, p50/p99, the api's CPU per link and
 * wrk's headroom; fails when the generator was the bottleneck. The goal: ≥ 900 links/s, above
 * the 463/s that Kutt 3.2.3 reached on this machine (10 concurrent clients, one user).
 * CREATE_API_MAIN=<path of another build's dist/apps/api/main.js>: the same against another
 * commit's api (A/B). CREATE_PROFILE=<dir>: `node --cpu-prof` of the api. BENCH_REDIS=cluster:
 * against a 3-primary Redis Cluster of the run's own instead of REDIS_URL's server.
 */
import { ChildProcess } from 'node:child_process';
import { join } from 'node:path';

import { DataSource } from 'typeorm';

import { runMigrations } from '../libs/database/src/data-source';
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
import { adminClient, benchRedis, createUsers, freePort, removeRun, runBench } from './lib/run';

const LINKS = Number(process.env.CREATE_LINKS ?? 2000);
const ROUNDS = Number(process.env.CREATE_ROUNDS ?? 3);
const CLIENTS = 10;
const run = `${process.pid}`;
const DATABASE_URL = `postgres://postgres@127.0.0.1:5432/linkmgmt_create_${run}`;
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const REDIS_PREFIX = `create${run}`;
const ADMIN_KEY = `admincreatekey${run}`.padEnd(40, 'x');

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
        process.env.CREATE_API_MAIN ?? join(__dirname, '..', 'dist', 'apps', 'api', 'main.js'),
      ],
      {
        env: {
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
        },
        stdio: ['ignore', 'ignore', 'inherit'],
      },
    );
    await waitHealthy(base, 120_000, server);

    const [pro] = await db.query(`SELECT id FROM plans WHERE name = 'Pro'`);
    const api = adminClient(base, ADMIN_KEY);
    const keys = await createUsers(api, `create${run}`, 10, pro.id, 'create-pass-1');

    const pids = [server.pid as number];
    let next = 0;
    const once = (ks: string[], count: number, connections = CLIENTS) => {
      const requests = creations(ks, next, count);
      next += count;
      return runWrk({
        url: base,
        connections,
        seconds: 600,
        script: {
          headers: { 'Content-Type': 'application/json' },
          requests,
          limit: count,
          onResponse: TALLY_STATUS,
        },
        serverPids: pids,
      });
    };
    // warm-up: every key's owner cached, the api's code paths compiled (not counted)
    await once(keys, 1000);

    const scenarios: Array<{ name: string; keys: string[]; runs: RunResult[] }> = [
      { name: 'one user', keys: keys.slice(0, 1), runs: [] },
      { name: 'ten users', keys, runs: [] },
    ];
    console.log(
      `\n${LINKS} links per run via POST /api/url/add, ${CLIENTS} concurrent clients, ${ROUNDS} rounds; Redis: ${redis.mode}; api on core 0, wrk on core 1\n${HEADER}\n`,
    );
    for (let round = 0; round < ROUNDS; round++) {
      for (const s of scenarios) {
        const r = await once(s.keys, LINKS);
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
    console.log('\ntargets');
    for (const s of scenarios) {
      const m = medianOf(s.runs);
      console.log(
        `  ${m.rps > 463 ? 'ok  ' : 'MISS'} ${s.name.padEnd(10)} ${m.rps.toFixed(0).padStart(5)} links/s  (> 463, Kutt; goal ≥ 900: ${m.rps >= 900 ? 'met' : 'not met'})  p99 ${m.p99Ms.toFixed(1)} ms`,
      );
    }
    if (errors) ok = false;
  } finally {
    if (server) await stop(server);
    await db.destroy();
    await removeRun({ DATABASE_URL, REDIS_URL, REDIS_PREFIX });
    await redis.stop();
  }
  process.exitCode = ok ? 0 : 1;
}

runBench(main);
