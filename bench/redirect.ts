/**
 * `npm run bench:redirect`: the short-link redirector under load, against baselines measured in the
 * same run on the same machine.
 *
 * The parent seeds a bench database (10 000 links) and a Redis prefix of its own, forks one server
 * process per scenario, warms each (one pass over its aliases, then 2 s of load), and drives them
 * one after the other with autocannon over loopback (50 connections, BENCH_SECONDS per run,
 * default 10). The whole series runs BENCH_ROUNDS times (default 3) and the targets are checked
 * on each scenario's median run: single runs of one scenario swing by ±8 % on this machine, as
 * much as the margins being checked:
 *
 *   raw 302          node:http answering a fixed 302: the ceiling of this machine
 *   redis + 302      node:http doing one Redis GET of the link's cached JSON, then the 302
 *   MGET + 302       the same with the api's own batching (BatchedGet: one MGET per turn of the
 *                    event loop), to show how much of the cold api's lead over the Redis
 *                    baseline is batching (not a target, reported beside it)
 *   api hot          the real api (createApi), aliases in the in-process cache, visits recorded
 *   api hot, no rec  the same with VisitRecorder.record replaced by a no-op
 *   api cold         the real api with LINK_CACHE_SIZE=0: every request reads Redis (with and
 *                    without visit recording)
 *   api hot, branded the hot api serving the 1 000 links of a branded domain, by Host (reported
 *                    beside the targets)
 *
 * BENCH_ONLY=<names> (`;`-separated parts of scenario names) runs only those, without ratios.
 * BENCH_PROFILE=<dir> writes there a V8 CPU profile of each measured run of every server process
 * (the measured window only, not start-up or warm-up).
 *
 * Requests carry a desktop browser User-Agent so visits are counted (the owner's plan has no
 * click cap), from one client address, or from BENCH_CLIENTS=n public addresses in turn (each
 * new visitor costs a digest and a GeoIP lookup that a returning one does not). Results, then
 * the ratios against the targets, are printed; the database and the Redis keys are removed at
 * the end.
 */
import { ChildProcess, fork } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { cpus } from 'node:os';
import { join } from 'node:path';

import Redis from 'ioredis';
import { DataSource } from 'typeorm';

interface Histogram {
  average: number;
  p50: number;
  p99: number;
}
interface AutocannonResult {
  requests: Histogram;
  latency: Histogram;
  errors: number;
  timeouts: number;
  statusCodeStats: Record<string, { count: number }>;
}
interface AutocannonRequest {
  path?: string;
  method?: string;
  headers?: Record<string, string>;
}
type Autocannon = (opts: {
  url: string;
  connections: number;
  duration?: number;
  amount?: number;
  headers?: Record<string, string>;
  requests?: Array<{ setupRequest?: (req: AutocannonRequest) => AutocannonRequest }>;
}) => Promise<AutocannonResult>;
// autocannon ships no type declarations
const autocannon: Autocannon = require('autocannon');

const LINKS = 10_000;
const HOT_SET = 1_000;
const CONNECTIONS = 50;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const PUBLIC_HOST = 'bench.test';
const BROWSER_UA =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';
const run = `${process.pid}`;
const DATABASE_URL =
  process.env.BENCH_DATABASE_URL ?? `postgres://postgres@127.0.0.1:5432/linkmgmt_bench_${run}`;
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const REDIS_PREFIX = process.env.BENCH_REDIS_PREFIX ?? `bench${run}`;

/** Links of the main host are bn00000…; those of the branded domain BRANDED_HOST bd00000…. */
const alias = (i: number, prefix = 'bn') => `${prefix}${String(i).padStart(5, '0')}`;
const BRANDED_HOST = 'go.bench.example';

type ServerKind = 'raw302' | 'redis302' | 'mget302' | 'api';

// ---------------------------------------------------------------- child: one server per scenario

async function serve(kind: ServerKind): Promise<void> {
  let server;
  if (kind === 'raw302') {
    const headers = [
      'Location',
      'https://example.com/landing/1',
      'Cache-Control',
      'private, max-age=90',
      'Content-Length',
      '0',
    ];
    server = createServer((_req, res) => {
      res.writeHead(302, headers);
      res.end();
    });
  } else if (kind === 'redis302' || kind === 'mget302') {
    const redis = new Redis(REDIS_URL);
    const prefix = `${REDIS_PREFIX}:link:`;
    // mget302: the same, with the api's batching of each turn's GETs into one MGET
    const { BatchedGet } = await import('@app/redis');
    const batched = new BatchedGet(redis);
    const get = kind === 'mget302' ? (k: string) => batched.get(k) : (k: string) => redis.get(k);
    server = createServer((req, res) => {
      get(prefix + (req.url ?? '/').slice(1)).then(
        (value) => {
          if (!value) {
            res.writeHead(404, ['Content-Length', '0']);
            return res.end();
          }
          const link = JSON.parse(value) as { url: string };
          res.writeHead(302, [
            'Location',
            link.url,
            'Cache-Control',
            'private, max-age=90',
            'Content-Length',
            '0',
          ]);
          res.end();
        },
        () => {
          res.writeHead(503, ['Content-Length', '0']);
          res.end();
        },
      );
    });
  } else {
    // the api exactly as production builds it
    const { createApi } = await import('../apps/api/src/bootstrap');
    const { VisitRecorder } = await import('@app/stats');
    const api = await createApi({ logger: false });
    if (process.env.BENCH_RECORD === 'off') api.app.get(VisitRecorder).record = () => undefined;
    server = api.server;
  }
  server.keepAliveTimeout = 65_000;
  process.on('SIGTERM', () => process.exit(0));
  // the parent asks for this process's CPU time before and after each run, and with
  // BENCH_PROFILE starts a CPU profile before it and names the file to write after it
  const session = new Session();
  process.on('message', async (m: { cpu?: number; profile?: string }) => {
    if (m.cpu === undefined) return;
    if (m.profile === 'start') {
      session.connect();
      await session.post('Profiler.enable');
      await session.post('Profiler.start');
    } else if (m.profile) {
      const { profile } = await session.post('Profiler.stop');
      session.disconnect();
      writeFileSync(m.profile, JSON.stringify(profile));
    }
    const { user, system } = process.cpuUsage();
    process.send?.({ cpu: m.cpu, micros: user + system });
  });
  server.listen(0, '127.0.0.1', () =>
    process.send?.({ port: (server.address() as AddressInfo).port }),
  );
}

// ---------------------------------------------------------------- parent: seed, drive, report

async function seed(): Promise<void> {
  const { runMigrations } = await import('@app/database');
  await runMigrations(DATABASE_URL);
  const db = new DataSource({ type: 'postgres', url: DATABASE_URL });
  await db.initialize();
  try {
    await db.query(`DELETE FROM links WHERE alias LIKE 'bn%'`);
    await db.query(`DELETE FROM links WHERE alias LIKE 'bd%'`);
    await db.query(`DELETE FROM users WHERE email = 'bench@example.com'`);
    const [user] = await db.query(
      `INSERT INTO users (email, username, password_hash, plan_id, api_key_hash, api_key_enc)
       SELECT 'bench@example.com', 'bench', 'x', id, md5(random()::text) || md5(random()::text), 'x'
       FROM plans WHERE NOT free ORDER BY id LIMIT 1 RETURNING id`,
    );
    await db.query(
      `INSERT INTO links (user_id, alias, url)
       SELECT $1, 'bn' || lpad(i::text, 5, '0'), 'https://example.com/landing/' || i FROM generate_series(0, $2 - 1) AS i`,
      [user.id, LINKS],
    );
    const [domain] = await db.query(
      `INSERT INTO domains (user_id, domain, host) VALUES ($1, $2, $3) RETURNING id`,
      [user.id, `https://${BRANDED_HOST}`, BRANDED_HOST],
    );
    await db.query(
      `INSERT INTO links (user_id, alias, url, domain_id)
       SELECT $1, 'bd' || lpad(i::text, 5, '0'), 'https://example.com/branded/' || i, $2
       FROM generate_series(0, $3 - 1) AS i`,
      [user.id, domain.id, HOT_SET],
    );
  } finally {
    await db.destroy();
  }
}

async function cleanup(): Promise<void> {
  if (process.env.BENCH_KEEP === '1') return;
  const url = new URL(DATABASE_URL);
  const name = url.pathname.slice(1);
  url.pathname = '/postgres';
  const admin = new DataSource({ type: 'postgres', url: url.toString() });
  await admin.initialize();
  await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).catch(() => undefined);
  await admin.destroy();
  const redis = new Redis(REDIS_URL);
  for await (const keys of redis.scanStream({ match: `${REDIS_PREFIX}:*`, count: 1000 })) {
    if ((keys as string[]).length) await redis.unlink(...(keys as string[]));
  }
  await redis.quit();
}

function start(
  kind: ServerKind,
  env: Record<string, string> = {},
): Promise<{ child: ChildProcess; url: string }> {
  return new Promise((resolve, reject) => {
    const child = fork(__filename, ['serve', kind], {
      env: {
        ...process.env,
        NODE_ENV: 'development',
        DATABASE_URL,
        REDIS_URL,
        REDIS_PREFIX,
        BENCH_DATABASE_URL: DATABASE_URL,
        BENCH_REDIS_PREFIX: REDIS_PREFIX,
        PUBLIC_URL: `http://${PUBLIC_HOST}`,
        DOMAIN_VERIFY: 'off',
        LOG_LEVEL: 'silent',
        ...env,
      },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    child.once('message', (m: { port: number }) =>
      resolve({ child, url: `http://127.0.0.1:${m.port}` }),
    );
    child.once('exit', (code) => reject(new Error(`${kind} server exited with ${code}`)));
  });
}

function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    const force = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => {
      clearTimeout(force);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 1);

/** The k-th of CLIENTS public client addresses (sent as X-Forwarded-For from loopback). */
const clientIp = (k: number) =>
  `${20 + (k % 70)}.${Math.floor(k / 70) % 256}.${Math.floor(k / 17_920) % 256}.${(k * 7) % 251}`;

/** What a scenario requests: aliases 0..span-1 of one host. */
interface Target {
  url: string;
  span: number;
  /** The Host header and alias prefix: the main host (bn…) unless set to the branded domain (bd…). */
  branded?: boolean;
}

/** The request headers of a target. */
const headersOf = (t: Target) => (t.branded ? { ...HEADERS, host: BRANDED_HOST } : HEADERS);

/** Aliases 0..span-1 in turn, one per request; with BENCH_CLIENTS, client addresses in turn too. */
function cycling(t: Target) {
  let i = 0;
  let k = 0;
  const prefix = t.branded ? 'bd' : 'bn';
  const headers = headersOf(t);
  return [
    {
      setupRequest: (req: AutocannonRequest) => {
        req.path = `/${alias(i, prefix)}`;
        i = (i + 1) % t.span;
        if (CLIENTS > 1) {
          req.headers = { ...headers, 'x-forwarded-for': clientIp(k) };
          k = (k + 1) % CLIENTS;
        }
        return req;
      },
    },
  ];
}

const HEADERS = { host: PUBLIC_HOST, 'user-agent': BROWSER_UA, 'x-forwarded-for': '203.0.113.7' };

/** CPU time (µs) the server process has used so far; `profile`: see BENCH_PROFILE. */
function serverCpu(child: ChildProcess, profile?: string): Promise<number> {
  return new Promise((resolve) => {
    const id = Math.random();
    const onMessage = (m: { cpu?: number; micros?: number }) => {
      if (m.cpu !== id) return;
      child.off('message', onMessage);
      resolve(m.micros as number);
    };
    child.on('message', onMessage);
    child.send({ cpu: id, profile });
  });
}

/** CPU time (µs) Redis has used so far (INFO cpu). */
async function redisCpu(redis: Redis): Promise<number> {
  const info = await redis.info('cpu');
  const field = (name: string) => Number(new RegExp(`${name}:([\\d.]+)`).exec(info)?.[1] ?? 0);
  return (field('used_cpu_user') + field('used_cpu_sys')) * 1e6;
}

interface Measured {
  name: string;
  rps: number;
  /** CPU per request of the server process and of Redis, µs */
  serverUs: number;
  redisUs: number;
  p50: number;
  p99: number;
  redirects: number;
  other: number;
}

async function measure(
  name: string,
  target: Target,
  child: ChildProcess,
  redis: Redis,
): Promise<Measured> {
  const dir = process.env.BENCH_PROFILE;
  const [cpu0, redis0] = await Promise.all([
    serverCpu(child, dir ? 'start' : undefined),
    redisCpu(redis),
  ]);
  const r = await autocannon({
    url: target.url,
    connections: CONNECTIONS,
    duration: SECONDS,
    headers: headersOf(target),
    requests: cycling(target),
  });
  const file = dir ? join(dir, `${name.replace(/\W+/g, '-')}-${Date.now()}.cpuprofile`) : undefined;
  const [cpu1, redis1] = await Promise.all([serverCpu(child, file), redisCpu(redis)]);
  const redirects = Number(r.statusCodeStats['302']?.count ?? 0);
  const total = Object.values(r.statusCodeStats).reduce((s, c) => s + Number(c.count), 0);
  const m = {
    name,
    rps: r.requests.average,
    serverUs: (cpu1 - cpu0) / Math.max(1, total),
    redisUs: (redis1 - redis0) / Math.max(1, total),
    p50: r.latency.p50,
    p99: r.latency.p99,
    redirects,
    other: total - redirects + r.errors + r.timeouts,
  };
  console.log(line(m) + (m.other ? `   (${m.other} non-302 / errors!)` : ''));
  return m;
}

function line(m: Measured): string {
  return (
    `${m.name.padEnd(22)} ${m.rps.toFixed(0).padStart(7)} req/s   p50 ${String(m.p50).padStart(3)} ms   p99 ${String(m.p99).padStart(3)} ms` +
    `   CPU/req: server ${m.serverUs.toFixed(1).padStart(5)} µs, Redis ${m.redisUs.toFixed(1).padStart(4)} µs`
  );
}

/** One pass over `span` aliases, so Redis (and the LRU, if any) hold them before measuring. */
async function warm(target: Target): Promise<void> {
  await autocannon({
    url: target.url,
    connections: 10,
    amount: target.span,
    headers: headersOf(target),
    requests: cycling(target),
  });
  await autocannon({
    url: target.url,
    connections: CONNECTIONS,
    duration: 2,
    headers: headersOf(target),
    requests: cycling(target),
  });
}

interface Scenario extends Omit<Target, 'url'> {
  url?: string;
  name: string;
  kind: ServerKind;
  env?: Record<string, string>;
  child?: ChildProcess;
  runs: Measured[];
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** The median run of a scenario by req/s. */
function typical(s: Scenario): Measured {
  const rps = median(s.runs.map((r) => r.rps));
  return s.runs.find((r) => r.rps === rps) as Measured;
}

async function main(): Promise<void> {
  const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
  console.log(
    `seeding ${LINKS} links into ${DATABASE_URL.replace(/\/\/[^@]*@/, '//')} (Redis prefix ${REDIS_PREFIX}) ...`,
  );
  await seed();
  const scenarios: Scenario[] = [
    // the cold api first: its warm-up fills Redis with every link, for the Redis baseline too
    { name: 'api cold (Redis)', kind: 'api', span: LINKS, env: { LINK_CACHE_SIZE: '0' }, runs: [] },
    {
      name: 'api cold, no recording',
      kind: 'api',
      span: LINKS,
      env: { LINK_CACHE_SIZE: '0', BENCH_RECORD: 'off' },
      runs: [],
    },
    { name: 'api hot (LRU)', kind: 'api', span: HOT_SET, runs: [] },
    {
      name: 'api hot, no recording',
      kind: 'api',
      span: HOT_SET,
      env: { BENCH_RECORD: 'off' },
      runs: [],
    },
    { name: 'baseline raw 302', kind: 'raw302', span: HOT_SET, runs: [] },
    { name: 'baseline Redis + 302', kind: 'redis302', span: LINKS, runs: [] },
    { name: 'baseline MGET + 302', kind: 'mget302', span: LINKS, runs: [] },
    // the links of a branded domain, by Host (one more in-process lookup per request)
    { name: 'api hot, branded host', kind: 'api', span: HOT_SET, branded: true, runs: [] },
  ];
  const only = (process.env.BENCH_ONLY ?? '').split(';').filter(Boolean);
  const active = only.length
    ? scenarios.filter((s) => only.some((o) => s.name.includes(o)))
    : scenarios;
  const redisClient = new Redis(REDIS_URL);
  try {
    for (const s of active) {
      Object.assign(s, await start(s.kind, s.env));
      await warm(s as Target);
    }
    console.log(
      `${CONNECTIONS} connections, ${SECONDS} s per run, ${rounds} round(s), loopback, ${cpus().length} cores\n`,
    );
    for (let round = 0; round < rounds; round++) {
      for (const s of active)
        s.runs.push(await measure(s.name, s as Target, s.child as ChildProcess, redisClient));
      if (rounds > 1) console.log('');
    }
  } finally {
    redisClient.disconnect();
    await Promise.all(scenarios.filter((s) => s.child).map((s) => stop(s.child as ChildProcess)));
    await cleanup();
  }

  if (active.length < scenarios.length) return;
  const [cold, coldOff, hot, hotOff, raw, redis, mget, branded] = scenarios.map(typical);
  if (rounds > 1) {
    console.log('median runs');
    for (const s of scenarios) console.log(line(typical(s)));
  }
  const ratio = (a: number, b: number) => (a / b).toFixed(2);
  const check = (ok: boolean) => (ok ? 'ok  ' : 'MISS');
  const recordingCost = 1 - hot.rps / hotOff.rps;
  console.log('\ntargets');
  console.log(
    `  ${check(hotOff.rps >= 0.9 * raw.rps)} api hot (no recording) / raw 302       ${ratio(hotOff.rps, raw.rps)}  (>= 0.90)`,
  );
  console.log(
    `  ${check(hot.rps >= 0.9 * raw.rps)} api hot (recording) / raw 302          ${ratio(hot.rps, raw.rps)}  (>= 0.90)`,
  );
  console.log(
    `  ${check(coldOff.rps >= 0.8 * redis.rps)} api cold (no recording) / Redis + 302  ${ratio(coldOff.rps, redis.rps)}  (>= 0.80)`,
  );
  console.log(
    `  ${check(cold.rps >= 0.8 * redis.rps)} api cold (recording) / Redis + 302     ${ratio(cold.rps, redis.rps)}  (>= 0.80)`,
  );
  console.log(
    `  ${check(Math.max(hot.p99, cold.p99) < 10)} p99 api hot / cold                     ${hot.p99} / ${cold.p99} ms  (< 10 ms)`,
  );
  console.log(
    `  ${check(recordingCost < 0.1)} cost of visit recording (hot)          ${(recordingCost * 100).toFixed(1)} %  (< 10 %)`,
  );
  console.log('\nbeside them (not targets)');
  console.log(
    `       api cold (recording) / MGET + 302      ${ratio(cold.rps, mget.rps)}  (the same batching of Redis reads on both sides)`,
  );
  console.log(
    `       cost of visit recording (cold)         ${((1 - cold.rps / coldOff.rps) * 100).toFixed(1)} %`,
  );
  console.log(
    `       api hot, branded host / raw 302        ${ratio(branded.rps, raw.rps)}  (p99 ${branded.p99} ms)`,
  );
  const failures = scenarios.filter((s) => s.runs.some((m) => m.other > 0));
  if (failures.length)
    console.log(`\nwarning: non-302 answers in ${failures.map((f) => f.name).join(', ')}`);
}

if (process.argv[2] === 'serve') {
  serve(process.argv[3] as ServerKind).catch((err) => {
    console.error(err);
    process.exit(1);
  });
} else {
  main().then(
    () => process.exit(0),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
