/**
 * `npm run bench:load`: two api processes (the built dist) behind one Redis and one Postgres take
 * a sustained mix for LOAD_SECONDS (default 60): 90 % short-link redirects (1 000 links), 10 % API
 * calls (half spread over 50 keys, half from one "hot" key that both processes see). Prints
 * throughput, p50/p99, errors (anything but the expected answers: must be 0), and the hot key's
 * 200s per rate-limit window, which must be exactly the limit (3 000) in every complete window
 * although its requests are split between the two processes.
 *
 * With the shared harness (bench/lib/harness.ts): both api processes are pinned to core 0, the
 * load comes from two wrk processes (one per api, 25 connections each) pinned to core 1, and the
 * run reports the api processes' CPU per request and wrk's CPU; it fails when wrk was the
 * bottleneck. wrk classifies each answer in Lua (a 302, a 200 of `/api/urls`, a 200 or 429 of the
 * hot key's `/api/account`, counted per X-RateLimit-Reset window), which costs it more CPU than a
 * redirect-only run: the headroom check covers that.
 */
import { ChildProcess } from 'node:child_process';

import { DataSource } from 'typeorm';

import { runMigrations } from '../libs/database/src/data-source';
import {
  checkHeadroom,
  ensureWrk,
  HEADER,
  line,
  RunResult,
  runWrk,
  spawnApi,
  stop,
  waitHealthy,
  WrkRequest,
} from './lib/harness';
import { adminClient, createUsers, freePort, removeRun, runBench } from './lib/run';

const SECONDS = Number(process.env.LOAD_SECONDS ?? 60);
const LINKS = 1000;
const KEYS = 50;
const LIMIT = 3000;
const run = `${process.pid}`;
const DATABASE_URL = `postgres://postgres@127.0.0.1:5432/linkmgmt_load_${run}`;
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const REDIS_PREFIX = `load${run}`;
const ADMIN_KEY = `adminloadkey${run}`.padEnd(40, 'x');
const UA =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';

async function startApi(port: number): Promise<ChildProcess> {
  const child = spawnApi({
    APP_SECRET: 'load-test-secret-load-test-secret',
    PORT: String(port),
    DATABASE_URL,
    REDIS_URL,
    REDIS_PREFIX,
    PUBLIC_URL: 'http://load.test',
    DOMAIN_VERIFY: 'off',
    LOG_LEVEL: 'warn',
    ADMIN_EMAIL: 'load-admin@example.com',
    ADMIN_API_KEY: ADMIN_KEY,
  });
  await waitHealthy(`http://127.0.0.1:${port}`, 120_000, child);
  return child;
}

async function main(): Promise<void> {
  ensureWrk();
  await runMigrations(DATABASE_URL);
  const ports = [await freePort(), await freePort()];
  const apis: ChildProcess[] = [];
  const db = new DataSource({ type: 'postgres', url: DATABASE_URL });
  await db.initialize();
  try {
    apis.push(await startApi(ports[0]));
    apis.push(await startApi(ports[1]));

    // Users on the paid plan (no clicks cap), their keys, and the links.
    const [pro] = await db.query(`SELECT id FROM plans WHERE NOT free ORDER BY id LIMIT 1`);
    const api = adminClient(`http://127.0.0.1:${ports[0]}`, ADMIN_KEY);
    const keys = await createUsers(api, `load${run}`, KEYS + 1, pro.id, 'load-pass-1');
    const [owner] = await db.query(`SELECT id FROM users WHERE username = $1`, [`load${run}u0`]);
    await db.query(
      `INSERT INTO links (user_id, alias, url) SELECT $1, 'ld' || g, 'https://example.com/target/' || g FROM generate_series(1, $2) g`,
      [owner.id, LINKS],
    );
    const hotKey = keys[KEYS];
    console.log(
      `2 api processes (ports ${ports.join(', ')}), ${LINKS} links, ${KEYS + 1} keys; ${SECONDS} s of 90 % redirects / 10 % API`,
    );

    // one cycle of 20 × KEYS requests: 18 of every 20 redirects, one hot-key call, one call of
    // one of the KEYS keys in turn (the same mix as n % 10 / n % 20 over a running count)
    const requests: WrkRequest[] = [];
    let apiCalls = 0;
    for (let n = 1; n <= 20 * KEYS; n++) {
      if (n % 10)
        requests.push({
          path: `/ld${1 + (n % LINKS)}`,
          headers: { Host: 'load.test', 'User-Agent': UA },
        });
      else if (n % 20 === 0)
        requests.push({ path: '/api/account', headers: { Authorization: `Bearer ${hotKey}` } });
      else
        requests.push({
          path: '/api/urls?limit=5',
          headers: { Authorization: `Bearer ${keys[apiCalls++ % KEYS]}` },
        });
    }
    // classified by the answer: a 302 is a redirect; a 200 whose body lists urls an API call; the
    // hot key's account (a 200 naming its e-mail, or a 429) is counted per rate-limit window
    const classify = `
      local reset = headers["X-RateLimit-Reset"] or headers["x-ratelimit-reset"]
      if status == 302 then tally.redirect = (tally.redirect or 0) + 1
      elseif status == 429 then tally.hot429 = (tally.hot429 or 0) + 1
      elseif status == 200 and body:find('"urls"', 1, true) then tally.api = (tally.api or 0) + 1
      elseif status == 200 and body:find('"email"', 1, true) and reset then
        tally.hot = (tally.hot or 0) + 1
        tally["w" .. reset] = (tally["w" .. reset] or 0) + 1
      else tally.unexpected = (tally.unexpected or 0) + 1 end`;
    const results: RunResult[] = await Promise.all(
      ports.map((port) =>
        runWrk({
          url: `http://127.0.0.1:${port}`,
          connections: 25,
          seconds: SECONDS,
          script: { requests, onResponse: classify },
          serverPids: apis.map((a) => a.pid as number),
        }),
      ),
    );
    const sum = (k: string) => results.reduce((s, r) => s + (r.tally[k] ?? 0), 0);
    const total = results.reduce((s, r) => s + r.requests, 0);
    const seconds = Math.max(...results.map((r) => r.seconds));
    // wrk counts every answer of 400 or above as an error: the hot key's 429s are expected (the
    // rate limit at work), so they are taken back out; any other answer is `unexpected`
    const errors = results.reduce((s, r) => s + r.errors, 0) - sum('hot429') + sum('unexpected');
    const p50 = Math.max(...results.map((r) => r.p50Ms));
    const p99 = Math.max(...results.map((r) => r.p99Ms));
    console.log(`\n${HEADER}\n`);
    // both wrk runs measured the same two api processes over the same window: CPU per request
    // over all requests is the first one's CPU figure scaled by its share of the requests
    const cpuUs = (results[0].serverUs * results[0].requests) / total;
    results.forEach((r, i) =>
      console.log(
        line(`wrk → api ${i + 1} (port ${ports[i]})`, r, 28).replace(
          /server .*? of core 0/,
          `servers ${(r.serverUtil * 100).toFixed(0)} % of core 0`,
        ),
      ),
    );
    console.log(`\nthroughput      ${Math.round(total / seconds)} req/s (${total} requests)`);
    console.log(`latency         p50 ${p50} ms, p99 ${p99} ms (worst of the two processes)`);
    console.log(
      `api CPU         ${cpuUs.toFixed(0)} µs per request (both processes, all requests)`,
    );
    console.log(
      `mix             ${sum('redirect')} redirects, ${sum('api')} API calls, ${sum('hot') + sum('hot429')} hot-key calls (${sum('hot429')} answered 429)`,
    );
    console.log(`errors          ${errors}  (must be 0)`);
    // Windows are identified by their reset time: the first and last may be cut by the run.
    const windows = new Map<string, number>();
    for (const r of results)
      for (const [k, v] of Object.entries(r.tally))
        if (k.startsWith('w')) windows.set(k.slice(1), (windows.get(k.slice(1)) ?? 0) + v);
    const sorted = [...windows.entries()].sort(([a], [b]) => Number(a) - Number(b));
    const byWindow = sorted.map(
      ([reset, count]) =>
        `${count} (resets ${new Date(Number(reset) * 1000).toISOString().slice(11, 19)})`,
    );
    console.log(`hot key 200s    per window: ${byWindow.join(', ')}; limit ${LIMIT}`);
    const full = sorted.filter(([reset]) => Number(reset) * 1000 <= Date.now());
    const exact = full.length > 0 && full.every(([, count]) => count === LIMIT);
    const first = sorted[0]?.[1];
    console.log(
      `rate limit      ${exact ? 'ok' : first === LIMIT ? 'ok' : 'MISS'}: ${full.length ? `${full.length} complete window(s)` : 'first window'} allowed exactly ${LIMIT} across both processes`,
    );
    let generatorOk = checkHeadroom(results.map((r, i) => [`wrk → api ${i + 1}`, [r]]));
    // the two wrk processes share core 1: together they must leave headroom too
    const together = results.reduce((s, r) => s + r.generatorUtil, 0);
    if (together >= 0.9) {
      console.log(
        `  FAIL: THE LOAD GENERATOR WAS THE BOTTLENECK: both wrk processes together used ${(together * 100).toFixed(0)} % of core 1`,
      );
      generatorOk = false;
    } else console.log(`  both wrk processes together: ${(together * 100).toFixed(0)} % of core 1`);
    process.exitCode = errors === 0 && (exact || first === LIMIT) && generatorOk ? 0 : 1;
  } finally {
    await Promise.all(apis.map(stop));
    await db.destroy();
    await removeRun({ DATABASE_URL, REDIS_URL, REDIS_PREFIX });
  }
}

runBench(main);
