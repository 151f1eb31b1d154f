/**
 * `npm run bench:load`: two api processes (the built dist) behind one Redis and one Postgres take
 * a sustained mix for LOAD_SECONDS (default 60): 90 % short-link redirects (1 000 links), 10 % API
 * calls (half spread over 50 keys, half from one "hot" key that both processes see). Prints
 * throughput, p50/p99, errors (anything but the expected answers: must be 0), and the hot key's
 * 200s per rate-limit window, which must be exactly the limit (3 000) in every complete window
 * although its requests are split between the two processes.
 */
import { ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';

import Redis from 'ioredis';
import { DataSource } from 'typeorm';

import { runMigrations } from '../libs/database/src/data-source';

interface Histogram {
  average: number;
  p50: number;
  p99: number;
  total?: number;
}
interface Result {
  requests: Histogram & { total: number };
  latency: Histogram;
  errors: number;
  timeouts: number;
  non2xx: number;
}
interface Req {
  path?: string;
  method?: string;
  headers?: Record<string, string>;
}
type Ctx = { kind?: 'redirect' | 'api' | 'hot' };
type Autocannon = (opts: {
  url: string;
  connections: number;
  duration: number;
  requests: Array<{
    setupRequest: (req: Req, context: Ctx) => Req;
    onResponse: (
      status: number,
      body: string,
      context: Ctx,
      headers: Record<string, string>,
    ) => void;
  }>;
}) => Promise<Result>;
const autocannon: Autocannon = require('autocannon');

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

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

async function startApi(port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, [join(__dirname, '..', 'dist', 'apps', 'api', 'main.js')], {
    env: {
      ...process.env,
      NODE_ENV: 'production',
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
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  for (let i = 0; i < 200; i++) {
    if (
      await fetch(`http://127.0.0.1:${port}/health`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return child;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`api on ${port} did not start`);
}

async function api(port: number, method: string, path: string, body?: object) {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, {
    method,
    headers: { Authorization: `Bearer ${ADMIN_KEY}`, 'Content-Type': 'application/json' },
    body: body ? JSON.stringify(body) : undefined,
  });
  const json = (await res.json()) as Record<string, unknown> & { data?: Record<string, unknown> };
  if (res.status !== 200)
    throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

async function main(): Promise<void> {
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
    const keys: string[] = [];
    for (let i = 0; i <= KEYS; i++) {
      const created = await api(ports[0], 'POST', '/api/user/add', {
        username: `load${run}u${i}`,
        email: `load${run}u${i}@example.com`,
        password: 'load-pass-1',
      });
      const id = (created.data as { id: number }).id;
      await api(ports[0], 'PUT', `/api/plan/${pro.id}/user/${id}`, { type: 'lifetime' });
      keys.push(
        ((await api(ports[0], 'GET', `/api/user/${id}`)).data as { apikey: string }).apikey,
      );
    }
    const [owner] = await db.query(`SELECT id FROM users WHERE username = $1`, [`load${run}u0`]);
    await db.query(
      `INSERT INTO links (user_id, alias, url) SELECT $1, 'ld' || g, 'https://example.com/target/' || g FROM generate_series(1, $2) g`,
      [owner.id, LINKS],
    );
    const hotKey = keys[KEYS];
    console.log(
      `2 api processes (ports ${ports.join(', ')}), ${LINKS} links, ${KEYS + 1} keys; ${SECONDS} s of 90 % redirects / 10 % API`,
    );

    const tally = { redirect: 0, api: 0, hot: 0, hot429: 0, unexpected: 0 };
    const unexpected: string[] = [];
    const windows = new Map<string, number>();
    let n = 0;
    let apiCalls = 0;
    const requests = [
      {
        setupRequest: (req: Req, context: Ctx): Req => {
          n += 1;
          if (n % 10) {
            context.kind = 'redirect';
            return {
              ...req,
              method: 'GET',
              path: `/ld${1 + (n % LINKS)}`,
              headers: { Host: 'load.test', 'User-Agent': UA },
            };
          }
          if (n % 20 === 0) {
            context.kind = 'hot';
            return {
              ...req,
              method: 'GET',
              path: '/api/account',
              headers: { Authorization: `Bearer ${hotKey}` },
            };
          }
          context.kind = 'api';
          return {
            ...req,
            method: 'GET',
            path: '/api/urls?limit=5',
            headers: { Authorization: `Bearer ${keys[apiCalls++ % KEYS]}` },
          };
        },
        onResponse: (
          status: number,
          _body: string,
          context: Ctx,
          headers: Record<string, string>,
        ) => {
          const kind = context.kind ?? 'redirect';
          tally[kind] += 1;
          const ok =
            (kind === 'redirect' && status === 302) ||
            (kind === 'api' && status === 200) ||
            (kind === 'hot' && (status === 200 || status === 429));
          if (!ok) {
            tally.unexpected += 1;
            if (unexpected.length < 5) unexpected.push(`${kind} ${status}`);
          }
          if (kind === 'hot') {
            if (status === 429) tally.hot429 += 1;
            else if (status === 200) {
              const reset = headers['x-ratelimit-reset'] ?? headers['X-RateLimit-Reset'];
              windows.set(reset, (windows.get(reset) ?? 0) + 1);
            }
          }
        },
      },
    ];
    const results = await Promise.all(
      ports.map((port) =>
        autocannon({
          url: `http://127.0.0.1:${port}`,
          connections: 25,
          duration: SECONDS,
          requests,
        }),
      ),
    );
    const total = results.reduce((s, r) => s + r.requests.total, 0);
    const errors = results.reduce((s, r) => s + r.errors + r.timeouts, 0) + tally.unexpected;
    const p50 = Math.max(...results.map((r) => r.latency.p50));
    const p99 = Math.max(...results.map((r) => r.latency.p99));
    console.log(`\nthroughput      ${Math.round(total / SECONDS)} req/s (${total} requests)`);
    console.log(`latency         p50 ${p50} ms, p99 ${p99} ms (worst of the two processes)`);
    console.log(
      `mix             ${tally.redirect} redirects, ${tally.api} API calls, ${tally.hot} hot-key calls (${tally.hot429} answered 429)`,
    );
    console.log(
      `errors          ${errors}${unexpected.length ? ` (${unexpected.join(', ')})` : ''}  (must be 0)`,
    );
    // Windows are identified by their reset time: the first and last may be cut by the run.
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
    process.exitCode = errors === 0 && (exact || first === LIMIT) ? 0 : 1;
  } finally {
    for (const a of apis) a.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 1000));
    await db.destroy();
    const admin = new DataSource({
      type: 'postgres',
      url: DATABASE_URL.replace(/\/[^/]+$/, '/postgres'),
    });
    await admin.initialize();
    await admin.query(`DROP DATABASE IF EXISTS linkmgmt_load_${run} WITH (FORCE)`);
    await admin.destroy();
    const redis = new Redis(REDIS_URL);
    const stream = redis.scanStream({ match: `${REDIS_PREFIX}:*`, count: 1000 });
    for await (const k of stream)
      if ((k as string[]).length) await redis.unlink(...(k as string[]));
    await redis.quit();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
