/**
 * `npm run bench:lists`: the api's CPU of a list request (`GET /api/urls`), issue #34. One user
 * owns LIST_LINKS links (default 20 000, written with COPY); among the newest: some on a branded
 * domain, in channels, with a password, an expiry, geo and device targets, a campaign, a flag of
 * the threat feeds; LIST_STATS_LINKS of them (default 3 000) have folded totals, and the newest 30
 * were visited through the api, so they have clicks not yet folded (pending counters in Redis: no
 * worker runs). The built api (and, with LIST_API_MAIN=<another build's dist/apps/api/main.js>,
 * that build beside it: an A/B in one run) runs pinned to core 0, wrk pinned to core 1 (its CPU is
 * reported: the generator's headroom). The routes:
 *
 *   page 1          /api/urls?limit=15&page=1
 *   page 1000       /api/urls?limit=15&page=1000
 *   by clicks       /api/urls?limit=15&order=click
 *   search          /api/urls?limit=15&q=garden
 *
 * First each build's answer to each route (and to a few more: pages past the end, a short keyword,
 * `short=`) is compared byte for byte with the first build's: an A/B of two builds fails on any
 * difference. Then LIST_ROUNDS rounds (default 3) of LIST_SECONDS (default 5) per route and build,
 * 4 clients (LIST_QUERIES_PER_USER=4), medians: req/s, p50/p99, the api's CPU per request. Then
 * (valgrind installed, LIST_INSTRUCTIONS not 0) the instructions per request of each route and
 * build (bench/lib/instructions.ts), LIST_COUNT=<warm>,<window>,<windows> (default 200,50,3):
 * the repeatable figure on a shared machine. BENCH_REDIS=cluster: against a Redis Cluster of the
 * run's own. LIST_PROFILE=<dir>: `node --cpu-prof` of each build.
 */
import { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
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
  medianOf,
  RunResult,
  runWrk,
  SERVER_CORE,
  spawnPinned,
  stop,
  waitHealthy,
} from './lib/harness';
import {
  countInstructions,
  formatCount,
  formatWindows,
  haveValgrind,
  startCounted,
  stopCounted,
} from './lib/instructions';
import { adminClient, benchRedis, createUsers, freePort, removeRun, runBench } from './lib/run';

const LINKS = Number(process.env.LIST_LINKS ?? 20_000);
const STATS_LINKS = Number(process.env.LIST_STATS_LINKS ?? 3000);
const ROUNDS = Number(process.env.LIST_ROUNDS ?? 3);
const SECONDS = Number(process.env.LIST_SECONDS ?? 5);
const CLIENTS = 4;
const run = `${process.pid}`;
const DATABASE_URL = `postgres://postgres@127.0.0.1:5432/linkmgmt_lists_${run}`;
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const REDIS_PREFIX = `lists${run}`;
const ADMIN_KEY = `adminlistskey${run}`.padEnd(40, 'x');
const [WARM, WINDOW, WINDOWS] = (process.env.LIST_COUNT ?? '200,50,3').split(',').map(Number);
const COUNT = { warm: WARM, window: WINDOW, windows: WINDOWS, connections: CLIENTS, status: 200 };

/** The builds compared: this tree's, and LIST_API_MAIN's when set. */
const BUILDS: Array<{ name: string; main: string }> = [
  { name: 'this', main: join(__dirname, '..', 'dist', 'apps', 'api', 'main.js') },
  ...(process.env.LIST_API_MAIN ? [{ name: 'other', main: process.env.LIST_API_MAIN }] : []),
];

const ROUTES: Array<[name: string, path: string]> = [
  ['page 1', '/api/urls?limit=15&page=1'],
  ['page 1000', '/api/urls?limit=15&page=1000'],
  ['by clicks', '/api/urls?limit=15&order=click'],
  ['search', '/api/urls?limit=15&q=garden'],
];
/** Compared between builds besides the routes. */
const CHECKED = [
  '/api/urls?limit=100&page=1',
  '/api/urls?limit=100&page=2',
  '/api/urls?limit=100&order=click',
  '/api/urls?limit=100&order=click&page=200',
  '/api/urls?limit=15&page=100000',
  '/api/urls?q=ab&limit=50',
  '/api/urls?q=garden&order=click',
  '/api/urls?short=li1',
  '/api/urls',
];

const TALLY_STATUS = 'local k = tostring(status); tally[k] = (tally[k] or 0) + 1';

function apiEnv(port: number): NodeJS.ProcessEnv {
  return {
    ...process.env,
    NODE_ENV: 'production',
    APP_SECRET: 'lists-bench-secret-lists-bench-secret',
    PORT: String(port),
    DATABASE_URL,
    REDIS_URL,
    REDIS_PREFIX,
    PUBLIC_URL: 'http://lists.test',
    DOMAIN_VERIFY: 'off',
    LOG_LEVEL: 'warn',
    RATE_LIMIT: '1000000',
    LIST_QUERIES_PER_USER: String(CLIENTS),
    ADMIN_EMAIL: 'lists-admin@example.com',
    ADMIN_API_KEY: ADMIN_KEY,
  };
}

/** The user's links as COPY text: (user_id, alias, url, title); "garden" in one title in 200. */
function* linkRows(user: number): Generator<string> {
  let chunk = '';
  for (let i = 0; i < LINKS; i++) {
    const code = i.toString(36);
    const title = i % 200 === 7 ? `Our garden ${code}` : `offer ${code} ab${i % 13}`;
    chunk += `${user}\tli${code}\thttps://host${i % 97}.example.com/page/${code}?id=${i}\t${title}\n`;
    if (chunk.length > 1 << 16) {
      yield chunk;
      chunk = '';
    }
  }
  if (chunk) yield chunk;
}

/** Seeds the user's links and what a list item shows; answers the API key and the aliases visited. */
async function seed(base: string): Promise<{ key: string; visited: string[] }> {
  const db = new Client({ connectionString: DATABASE_URL });
  await db.connect();
  try {
    const [pro] = (await db.query(`SELECT id FROM plans WHERE name = 'Pro'`)).rows;
    const [key] = await createUsers(
      adminClient(base, ADMIN_KEY),
      `lists${run}`,
      1,
      pro.id,
      'lists-pass-1',
    );
    const [{ id: user }] = (
      await db.query(`SELECT id FROM users WHERE email = $1`, [`lists${run}u0@example.com`])
    ).rows;
    const copy = db.query(copyFrom(`COPY links (user_id, alias, url, title) FROM STDIN`));
    await pipeline(Readable.from(linkRows(user)), copy);
    const [{ id: domain }] = (
      await db.query(
        `INSERT INTO domains (user_id, domain, host) VALUES ($1, 'https://go.brand.test', 'go.brand.test') RETURNING id`,
        [user],
      )
    ).rows;
    const [{ id: campaign }] = (
      await db.query(`INSERT INTO campaigns (user_id, name) VALUES ($1, 'spring') RETURNING id`, [
        user,
      ])
    ).rows;
    const channels = (
      await db.query(
        `INSERT INTO channels (user_id, name) SELECT $1, 'c' || g FROM generate_series(1, 3) g RETURNING id`,
        [user],
      )
    ).rows.map((r: { id: number }) => r.id);
    // the newest 2 000: every 3rd on the domain, every 5th with a password, every 7th expiring,
    // every 4th targeted, every 6th in a campaign, every 11th private, every 9th in channels
    await db.query(
      `WITH newest AS (SELECT id, row_number() OVER (ORDER BY id DESC) AS n FROM links WHERE user_id = $1 ORDER BY id DESC LIMIT 2000)
       UPDATE links l SET
         domain_id = CASE WHEN n % 3 = 0 THEN $2::int END,
         password_hash = CASE WHEN n % 5 = 0 THEN 'x' END,
         expires_at = CASE WHEN n % 7 = 0 THEN now() + interval '30 days' END,
         geo_targets = CASE WHEN n % 4 = 0 THEN '[{"location":"FR","link":"https://fr.example.com"}]'::jsonb END,
         device_targets = CASE WHEN n % 8 = 0 THEN '[{"device":"iphone","link":"https://ios.example.com"}]'::jsonb END,
         campaign_id = CASE WHEN n % 6 = 0 THEN $3::int END,
         status = CASE WHEN n % 11 = 0 THEN 'private' ELSE 'public' END,
         description = CASE WHEN n % 2 = 0 THEN 'about ' || n ELSE '' END
       FROM newest WHERE newest.id = l.id`,
      [user, domain, campaign],
    );
    await db.query(
      `INSERT INTO channel_items (channel_id, user_id, item_type, item_id)
       SELECT c, $1, 'links', l.id
         FROM (SELECT id, row_number() OVER (ORDER BY id DESC) AS n FROM links WHERE user_id = $1 ORDER BY id DESC LIMIT 2000) l,
              unnest($2::int[]) WITH ORDINALITY AS ch(c, k)
        WHERE l.n % 9 = 0 AND (k = 1 OR l.n % 2 = 0)`,
      [user, channels],
    );
    await db.query(
      `INSERT INTO link_flags (link_id, target, source, type)
       SELECT id, url, 'feed', 'phishing' FROM links WHERE user_id = $1 AND id % 37 = 0 ORDER BY id DESC LIMIT 40`,
      [user],
    );
    await db.query(
      `INSERT INTO link_stats_total (link_id, clicks, uniques)
       SELECT id, 1 + id % 500, 1 + id % 200 FROM links WHERE user_id = $1 ORDER BY id DESC LIMIT $2`,
      [user, STATS_LINKS],
    );
    await db.query(`VACUUM ANALYZE`);
    const visited = (
      await db.query(
        `SELECT alias FROM links WHERE user_id = $1 AND password_hash IS NULL AND status = 'public'
          AND domain_id IS NULL ORDER BY id DESC LIMIT 30`,
        [user],
      )
    ).rows.map((r: { alias: string }) => r.alias);
    return { key, visited };
  } finally {
    await db.end();
  }
}

/** Visits `aliases` (a few each) through `base`, then waits for the api's flush to Redis. */
async function visit(base: string, aliases: string[]): Promise<void> {
  for (const [i, alias] of aliases.entries())
    for (let v = 0; v <= i % 4; v++)
      await fetch(`${base}/${alias}`, {
        redirect: 'manual',
        headers: { 'User-Agent': `bench-${v}`, 'X-Forwarded-For': `10.0.${i}.${v}` },
      });
  await new Promise((r) => setTimeout(r, 3000));
}

interface Started {
  name: string;
  main: string;
  base: string;
  child: ChildProcess;
}

async function start(name: string, main: string): Promise<Started> {
  const port = await freePort();
  const child = spawnPinned(
    SERVER_CORE,
    process.execPath,
    [
      ...(process.env.LIST_PROFILE
        ? ['--cpu-prof', `--cpu-prof-dir=${process.env.LIST_PROFILE}/${name}`]
        : []),
      main,
    ],
    { env: apiEnv(port), stdio: ['ignore', 'ignore', 'inherit'] },
  );
  const base = `http://127.0.0.1:${port}`;
  await waitHealthy(base, 120_000, child);
  return { name, main, base, child };
}

async function main(): Promise<void> {
  ensureWrk();
  const redis = await benchRedis();
  await runMigrations(DATABASE_URL);
  const servers: Started[] = [];
  let ok = true;
  try {
    for (const b of BUILDS) servers.push(await start(b.name, b.main));
    const t0 = performance.now();
    const { key, visited } = await seed(servers[0].base);
    await visit(servers[0].base, visited);
    console.log(
      `seeded ${LINKS} links of one user in ${((performance.now() - t0) / 1000).toFixed(1)} s; Redis: ${redis.mode}`,
    );
    const auth = { Authorization: `Bearer ${key}` };

    // the same answers from every build
    for (const path of [...ROUTES.map(([, p]) => p), ...CHECKED]) {
      const bodies = await Promise.all(
        servers.map(async (s) => {
          const res = await fetch(`${s.base}${path}`, { headers: auth });
          return `${res.status} ${await res.text()}`;
        }),
      );
      if (!bodies[0].startsWith('200 ')) {
        console.log(`FAIL ${path}: ${bodies[0].slice(0, 300)}`);
        ok = false;
      }
      if (bodies.some((b) => b !== bodies[0])) {
        console.log(`FAIL ${path}: the builds answer differently`);
        ok = false;
      }
    }
    if (servers.length > 1)
      console.log(`answers compared between the builds: ${ok ? 'identical' : 'DIFFERENT'}`);

    const results = new Map<string, RunResult[]>();
    console.log(
      `\n${ROUNDS} rounds of ${SECONDS} s per route and build, ${CLIENTS} clients of the one user; api on core 0, wrk on core 1\n${HEADER}\n`,
    );
    for (let round = 0; round <= ROUNDS; round++)
      for (const [name, path] of ROUTES)
        for (const s of servers) {
          const r = await runWrk({
            url: s.base,
            connections: CLIENTS,
            seconds: round === 0 ? 2 : SECONDS,
            script: { headers: auth, requests: [{ path }], onResponse: TALLY_STATUS },
            serverPids: [s.child.pid as number],
          });
          const non200 = Object.entries(r.tally)
            .filter(([status]) => status !== '200')
            .reduce((n, [, c]) => n + c, 0);
          if (non200) r.errors += non200;
          // round 0 warms up (V8 compiles the path, Postgres caches the pages)
          if (round === 0) continue;
          const label = `${name} (${s.name})`;
          results.set(label, [...(results.get(label) ?? []), r]);
          console.log(line(label, r, 20));
        }
    ok = checkHeadroom([...results]) && ok;
    console.log('\nmedians over rounds');
    for (const [label, runs] of results) {
      const m = medianOf(runs);
      if (m.errors) ok = false;
      console.log(line(label, m, 20));
    }
    for (const s of servers) await stop(s.child);
    servers.length = 0;
    await countAll(auth);
  } finally {
    for (const s of servers) await stop(s.child);
    await removeRun({ DATABASE_URL, REDIS_URL, REDIS_PREFIX });
    await redis.stop();
  }
  process.exitCode = ok ? 0 : 1;
}

/** Instructions per request (callgrind) of each route and build, each build started afresh. */
async function countAll(auth: Record<string, string>): Promise<void> {
  if (process.env.LIST_INSTRUCTIONS === '0') return;
  if (!haveValgrind()) {
    console.log('\ninstructions per request: skipped (no valgrind; apt-get install valgrind)');
    return;
  }
  console.log(
    `\ninstructions per request (callgrind; user space only). ${COUNT.windows} windows of ${COUNT.window} requests after ${COUNT.warm} uncounted, ${CLIENTS} connections; the quietest window is the figure`,
  );
  const headers = { ...auth, Host: '127.0.0.1' };
  const figures = new Map<string, number>();
  for (const b of BUILDS) {
    const port = await freePort();
    const api = await startCounted([b.main], apiEnv(port), /api listening/, port);
    try {
      await waitHealthy(`http://127.0.0.1:${port}`, 120_000, api.child);
      for (const [name, path] of ROUTES) {
        const c = await countInstructions(api, [{ path }], headers, COUNT);
        figures.set(`${name}|${b.name}`, c.min);
        console.log(
          `${`${name} (${b.name})`.padEnd(20)} ${formatCount(c).padStart(26)} instructions/request   windows: ${formatWindows(c)}`,
        );
      }
    } finally {
      await stopCounted(api);
    }
  }
  if (BUILDS.length > 1)
    for (const [name] of ROUTES)
      console.log(
        `${name.padEnd(10)} this / other: ${(figures.get(`${name}|this`)! / figures.get(`${name}|other`)!).toFixed(2)}×`,
      );
}

runBench(main);
