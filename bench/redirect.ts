/**
 * `npm run bench:redirect`: the short-link redirector under load, against baselines measured in the
 * same run on the same machine, with the shared harness (bench/lib/harness.ts): every server is a
 * Node process of its own pinned to core 0, the load comes from wrk pinned to core 1, and every
 * run reports the server's CPU per request and its share of core 0, wrk's CPU, and whether the
 * generator was the bottleneck (then the bench fails: those figures would measure wrk).
 *
 * The parent seeds a bench database (10 000 links, 1 000 of a branded domain, 1 000 with
 * targeting options) and a Redis prefix of its own, starts the servers, warms each scenario (one
 * pass over its aliases, then 2 s of load), and runs every scenario once per round, BENCH_ROUNDS
 * rounds (default 3), BENCH_SECONDS each (default 10), 50 connections; a baseline and the api
 * scenarios measured against it follow each other in every round, and the figures reported are
 * the medians over rounds (ratios: the median of each round's ratio).
 *
 *   raw 302            node:http answering a fixed 302: the ceiling of this machine
 *   api hot            the real api (createApi), aliases in the in-process cache, a desktop
 *                      browser User-Agent: every visit is recorded. Like a deployed api, every
 *                      api of the bench has answered /health (a request Nest serves) before its
 *                      first redirect: state that Nest requests leave in the process counts (an
 *                      AsyncLocalStorage context entered per request once cost 20 % more
 *                      instructions a redirect, unseen by a bench that only sent redirects)
 *   api hot, no UA     the same requests without a User-Agent: not counted (nothing recorded)
 *   api hot, targeted  links with geo, device and language targets (the visitor matches none of
 *                      them: every rule is checked); target ≥ 0.9× the plain hot link
 *   api hot, branded   the links of a branded domain, by Host
 *   + worker           the api hot with a worker beside it on core 0 (it folds the visits);
 *   + worker, webhook  the same, on the links of a user with a `link.clicked` webhook (a
 *                      receiver in this process answers 204): within 5 % of the run before
 *   Redis GET + 302    node:http doing one Redis GET of the link's cached JSON, then the 302
 *   api cold           the api with LINK_CACHE_SIZE=0: every request reads Redis; visits recorded
 *   api cold, no UA    the same without a User-Agent (nothing recorded): what recording adds to
 *                      the cold tail
 *   MGET + 302         the Redis baseline with the api's batching (BatchedGet: one MGET per turn
 *                      of the event loop), reported beside the targets
 *
 * Every server runs under plain node: the api from dist (`npm run build` first, which the script
 * does), the baselines transpiled (bench/lib/baseline-server.ts).
 *
 * Then the raw 302, the hot api (with and without a User-Agent) and the cold api are run once
 * more under valgrind's callgrind, for their instructions per request: a figure that, unlike
 * req/s and CPU time, does not move with what else the machine does (bench/lib/instructions.ts;
 * ~5 min; BENCH_INSTRUCTIONS=0 skips it, BENCH_COUNT=<warm>,<window>,<windows> sizes it,
 * BENCH_CALLGRIND_DIR=<dir> keeps every window's callgrind file for callgrind_annotate).
 *
 * BENCH_API_B=<another build's dist/apps/api/main.js>: an A/B against that build (an older commit
 * built in a worktree of its own, node_modules symlinked): its api runs "api hot (B)", "api
 * hot, mixed visitors (B)" and "api cold (B)" in every round beside this build's, each pair's
 * req/s, CPU and p99 ratio is reported round by round, and the hot ones are counted under
 * callgrind. The B api reads the database
 * this bench seeds with the current migrations (they only add), so the other build must not need
 * a column that was since dropped.
 * BENCH_ONLY=<names> (`;`-separated parts of scenario names, or `=name` for exactly that one)
 * runs only those, without ratios.
 * BENCH_CONNECTIONS=n (50) sets wrk's connections of the main scenarios.
 * BENCH_PROFILE=<dir> runs the servers (api and baselines) with `node --cpu-prof` (a V8 CPU profile of each
 * process's whole life, written there when it stops). BENCH_NODE_ARGS='<flags>' (space-separated)
 * starts every api with those node/V8 flags (`--max-semi-space-size=32`, `--require <probe>`);
 * the baselines run without them. BENCH_CLIENTS=n sends the visits from n
 * public addresses in turn (X-Forwarded-For; the api trusts loopback as its proxy), each new
 * visitor costing a digest and a GeoIP lookup that a returning one does not. The database and the
 * Redis keys are removed at the end.
 */
import { ChildProcess } from 'node:child_process';
import { copyFileSync, mkdirSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { cpus } from 'node:os';
import { join } from 'node:path';

import { DataSource } from 'typeorm';

import { encryptSecret } from '@app/common';
import { isCluster, primaries, RedisClient } from '@app/redis';

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
  startPinnedServer,
  stop,
  waitHealthy,
  WrkRequest,
} from './lib/harness';
import {
  countInstructions,
  Counted,
  CountedServer,
  formatCount,
  formatIdle,
  formatWindows,
  haveValgrind,
  startCounted,
  stopCounted,
} from './lib/instructions';
import { perRequest, probeArgs, probeCounts } from './lib/probe-counts';
import { benchRedis, BenchRedis, freePort, removeRun, runBench } from './lib/run';
import { visitorHeaders } from './lib/visitors';
import { scanKeys, testRedis } from '../test/support/redis';

const LINKS = 10_000;
const HOT_SET = 1_000;
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
/** Unmeasured load right before every measured run (see measure). */
const PRIME_SECONDS = 2;
const PUBLIC_HOST = 'bench.test';
const BROWSER_UA =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';
/**
 * The #12 targeting scenario: 10 device rules (iPhone and Android visitors match one), 50
 * country rules and 10 language rules; the other visitors (a console, a smart TV: no device
 * rule applies) go through every country and language rule. Plain and targeted hot links get
 * the same mix of user agents, client addresses and Accept-Language values.
 */
const COUNTRIES =
  'AR AT AU BE BG BR CA CH CL CN CO CZ DE DK EE EG ES FI FR GB GR HK HR HU ID IE IL IN IS IT JP KE KR LT LU LV MA MX MY NG NL NO NZ PE PH PK PL PT RO RS'.split(
    ' ',
  );
const GEO_RULES = COUNTRIES.map((c) => ({ location: c, link: `https://example.com/geo/${c}` }));
const DEVICE_RULES = [
  'ipad',
  'chromeos',
  'linux',
  'macos',
  'windows',
  'tablet',
  'iphone',
  'android',
  'mobile',
  'desktop',
].map((d) => ({ device: d, link: `https://example.com/device/${d}` }));
const LANGUAGE_RULES = 'ar cs da el fi he hu ja ko pl'
  .split(' ')
  .map((l) => ({ language: l, link: `https://example.com/lang/${l}` }));
const run = `${process.pid}`;
const DATABASE_URL =
  process.env.BENCH_DATABASE_URL ?? `postgres://postgres@127.0.0.1:5432/linkmgmt_bench_${run}`;
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const REDIS_PREFIX = process.env.BENCH_REDIS_PREFIX ?? `bench${run}`;

/**
 * Links of the main host are bn00000…, with targeting options bt00000…; the branded domain's
 * bd00000…; those of the user with a link.clicked webhook bw00000….
 */
const alias = (i: number, prefix = 'bn') => `${prefix}${String(i).padStart(5, '0')}`;
const BRANDED_HOST = 'go.bench.example';
const BENCH_SECRET = 'bench-app-secret-0123456789';
/** The worker's fold interval in this bench (STATS_FOLD_SECONDS). */
const FOLD_SECONDS = 2;

type ServerKind = 'raw302' | 'redis302' | 'mget302' | 'api' | 'worker';

// ---------------------------------------------------------------- parent: seed, drive, report

async function seed(receiver: string): Promise<void> {
  const { runMigrations } = await import('@app/database');
  await runMigrations(DATABASE_URL);
  const db = new DataSource({ type: 'postgres', url: DATABASE_URL });
  await db.initialize();
  try {
    await db.query(`DELETE FROM links WHERE alias LIKE 'bn%'`);
    await db.query(`DELETE FROM links WHERE alias LIKE 'bd%'`);
    await db.query(`DELETE FROM links WHERE alias LIKE 'bt%'`);
    await db.query(`DELETE FROM links WHERE alias LIKE 'bw%'`);
    await db.query(`DELETE FROM users WHERE email IN ('bench@example.com', 'hooked@example.com')`);
    /** A user on the first paid plan with `count` plain links `<prefix>00000…` to `<path>/<i>`. */
    const userWithLinks = async (name: string, prefix: string, path: string, count: number) => {
      const [row] = await db.query(
        `INSERT INTO users (email, username, password_hash, plan_id, api_key_hash, api_key_enc)
         SELECT $1 || '@example.com', $1, 'x', id, md5(random()::text) || md5(random()::text), 'x'
         FROM plans WHERE NOT free ORDER BY id LIMIT 1 RETURNING id`,
        [name],
      );
      await db.query(
        `INSERT INTO links (user_id, alias, url)
         SELECT $1, $2 || lpad(i::text, 5, '0'), $3 || i FROM generate_series(0, $4 - 1) AS i`,
        [row.id, prefix, `https://example.com/${path}/`, count],
      );
      return row as { id: number };
    };
    const user = await userWithLinks('bench', 'bn', 'landing', LINKS);
    // targeting options (as url/add stores them): 10 device, 50 country and 10 language rules
    await db.query(
      `INSERT INTO links (user_id, alias, url, geo_targets, device_targets, language_targets)
       SELECT $1, 'bt' || lpad(i::text, 5, '0'), 'https://example.com/targeted/' || i,
              $3::jsonb, $4::jsonb, $5::jsonb
       FROM generate_series(0, $2 - 1) AS i`,
      [
        user.id,
        HOT_SET,
        JSON.stringify(GEO_RULES),
        JSON.stringify(DEVICE_RULES),
        JSON.stringify(LANGUAGE_RULES),
      ],
    );
    // a second user whose links are all watched by a link.clicked webhook
    const hooked = await userWithLinks('hooked', 'bw', 'watched', HOT_SET);
    await db.query(
      `INSERT INTO webhooks (user_id, url, events, secret_enc) VALUES ($1, $2, '{link.clicked}', $3)`,
      [hooked.id, receiver, encryptSecret('bench-webhook-secret', BENCH_SECRET)],
    );
    const [domain] = await db.query(
      `INSERT INTO domains (user_id, domain, host, verified_at) VALUES ($1, $2, $3, now()) RETURNING id`,
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

async function cleanup(redis: BenchRedis): Promise<void> {
  if (process.env.BENCH_KEEP !== '1') await removeRun({ DATABASE_URL, REDIS_URL, REDIS_PREFIX });
  await redis.stop();
}

/** The environment every server of the bench runs with (`env` adds to it). */
function serverEnv(env: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    NODE_ENV: 'development',
    DATABASE_URL,
    REDIS_URL,
    REDIS_PREFIX,
    PUBLIC_URL: `http://${PUBLIC_HOST}`,
    DOMAIN_VERIFY: 'off',
    TRUST_PROXY: 'loopback',
    LOG_LEVEL: 'silent',
    APP_SECRET: BENCH_SECRET,
    WEBHOOK_ALLOW_HOSTS: '127.0.0.1',
    STATS_FOLD_SECONDS: String(FOLD_SECONDS),
    ...env,
  };
}

const API_MAIN = join(__dirname, '..', 'dist', 'apps', 'api', 'main.js');
/** BENCH_PROBE=1: every server runs with the probe (bench/lib/probe-counts.ts), each run's counts per request printed. */
const PROBE = process.env.BENCH_PROBE === '1' ? probeArgs() : null;
/** BENCH_API_B: another build's api, measured beside this one (A/B). */
const API_B = process.env.BENCH_API_B;
/** The api's entry point for a server of the scenarios (`hotB`, `coldB`: the B build). */
const apiMain = (server: string) =>
  server === 'hotB' || server === 'coldB' ? (API_B as string) : API_MAIN;

/** The baselines' script (bench/lib/baseline-server.ts, transpiled); its argument is the kind. */
function baselineScript(): string {
  return compiled({
    'baseline-server': join(__dirname, 'lib', 'baseline-server.ts'),
    'batched-get': join(__dirname, '..', 'libs', 'redis', 'src', 'batched-get.ts'),
    'key-slot': join(__dirname, '..', 'libs', 'redis', 'src', 'key-slot.ts'),
    'redis-client': join(__dirname, '..', 'libs', 'redis', 'src', 'redis-client.ts'),
    'slot-routes': join(__dirname, '..', 'libs', 'redis', 'src', 'slot-routes.ts'),
  });
}

/**
 * Starts a server pinned to the server core, under plain node: the built api (dist, as
 * production runs it; BENCH_PROFILE: with --cpu-prof, written when it stops) or a baseline.
 */
async function start(
  kind: ServerKind,
  env: Record<string, string> = {},
  main = API_MAIN,
): Promise<{ child: ChildProcess; url: string }> {
  const common = serverEnv(env);
  const dir = process.env.BENCH_PROFILE;
  const profile = dir ? ['--cpu-prof', `--cpu-prof-dir=${dir}`] : [];
  const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
  if (kind === 'worker') {
    const { child } = await startPinnedServer(
      [join(__dirname, '..', 'dist', 'apps', 'worker', 'main.js')],
      common,
      /worker started/,
    );
    return { child, url: '' };
  }
  if (kind === 'api') {
    const port = await freePort();
    const { child } = await startPinnedServer(
      [...profile, ...nodeArgs, ...(PROBE ? PROBE.args : []), main],
      { ...common, PORT: String(port), ...(PROBE ? { BENCH_PROBE_DIR: PROBE.dir } : {}) },
      /api listening/,
    );
    const url = `http://127.0.0.1:${port}`;
    // a deployed api answers health checks and API calls between its redirects: so does this one
    await waitHealthy(url, 120_000, child);
    return { child, url };
  }
  const { child, match } = await startPinnedServer(
    [...profile, ...(PROBE ? PROBE.args : []), baselineScript(), kind],
    PROBE ? { ...common, BENCH_PROBE_DIR: PROBE.dir } : common,
    /listening (\d+)/,
  );
  return { child, url: `http://127.0.0.1:${match[1]}` };
}

const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 1);

/** The k-th of CLIENTS public client addresses (sent as X-Forwarded-For from loopback). */
const clientIp = (k: number) =>
  `${20 + (k % 70)}.${Math.floor(k / 70) % 256}.${Math.floor(k / 17_920) % 256}.${(k * 7) % 251}`;

/** What a scenario requests: aliases 0..span-1 with `prefix`, on the main host or the branded one. */
interface Target {
  span: number;
  prefix: 'bn' | 'bd' | 'bt' | 'bw';
  /** Send the desktop browser User-Agent (visits recorded); false: none (not counted). */
  browser: boolean;
  /** A mix of visitors (user agents, addresses, languages) instead of one desktop browser. */
  mix?: boolean;
}

/** The wrk script of a target: its aliases in turn (with BENCH_CLIENTS, client addresses too). */
function script(t: Target, limit?: number) {
  const headers: Record<string, string> = {
    Host: t.prefix === 'bd' ? BRANDED_HOST : PUBLIC_HOST,
    'X-Forwarded-For': '203.0.113.7',
  };
  if (t.browser) headers['User-Agent'] = BROWSER_UA;
  const n = CLIENTS > 1 ? Math.max(t.span, Math.min(CLIENTS, 100_000)) : t.span;
  const requests: WrkRequest[] = [];
  for (let i = 0; i < n; i++)
    requests.push({
      path: `/${alias(i % t.span, t.prefix)}`,
      headers: t.mix
        ? visitorHeaders(i)
        : CLIENTS > 1
          ? { 'X-Forwarded-For': clientIp(i % CLIENTS) }
          : undefined,
    });
  return { headers, requests, limit };
}

/**
 * CPU time (µs) Redis has used so far (INFO cpu), and the GET and MGET commands it has run (INFO
 * commandstats), on every primary of a cluster together.
 */
async function redisCpu(redis: RedisClient): Promise<{ us: number; reads: number }> {
  let us = 0;
  let reads = 0;
  for (const node of primaries(redis)) {
    const info = await node.info('cpu');
    const field = (name: string) => Number(new RegExp(`${name}:([\\d.]+)`).exec(info)?.[1] ?? 0);
    us += (field('used_cpu_user') + field('used_cpu_sys')) * 1e6;
    const stats = await node.info('commandstats');
    for (const c of ['get', 'mget'])
      reads += Number(new RegExp(`cmdstat_${c}:calls=(\\d+)`).exec(stats)?.[1] ?? 0);
  }
  return { us, reads };
}

interface Scenario extends Target {
  name: string;
  server: string;
  /** The raw 302 baseline must keep its core busy (the generator-headroom check). */
  cpuBound?: boolean;
  /** A worker runs beside the api on core 0 during the run (started before, stopped after). */
  worker?: boolean;
  runs: Array<RunResult & { redisUs: number }>;
}

/**
 * Before a run over all LINKS aliases (Redis baselines, cold api): every link's cached JSON must
 * be in Redis (the cold api's warm-up wrote them). If someone deleted them (seen on a shared
 * machine), they are written again through the cold api, and that is said.
 */
async function refill(
  servers: Map<string, { child: ChildProcess; url: string }>,
  redis: RedisClient,
): Promise<void> {
  // on a cluster the link cache's keys are `<prefix>:{link:<bucket>}:<alias>`
  const pattern = isCluster(redis) ? `${REDIS_PREFIX}:{link:*}:*` : `${REDIS_PREFIX}:link:*`;
  const held = (await scanKeys(redis, pattern)).length;
  if (held >= LINKS) return;
  const cold = servers.get('cold');
  if (!cold) throw new Error(`Redis holds ${held} of ${LINKS} links and no cold api can refill it`);
  console.log(`(Redis held ${held} of ${LINKS} links: deleted by another process; refilled)`);
  await runWrk({
    url: cold.url,
    connections: 10,
    seconds: 60,
    script: script({ span: LINKS, prefix: 'bn', browser: false }, LINKS),
    serverPids: [cold.child.pid as number],
  });
}

async function measure(
  s: Scenario,
  server: { child: ChildProcess; url: string },
  redis: RedisClient,
  worker: { child: ChildProcess } | null,
): Promise<RunResult & { redisUs: number }> {
  // every measured run follows PRIME_SECONDS of the same load, unmeasured: each server starts its
  // run in the same state, however long it sat idle while the other scenarios ran
  await runWrk({
    url: server.url,
    connections: CONNECTIONS,
    seconds: PRIME_SECONDS,
    script: script(s),
    serverPids: [server.child.pid as number],
  });
  const redis0 = await redisCpu(redis);
  const pid = server.child.pid as number;
  const counts0 = PROBE ? await probeCounts(pid, PROBE.dir) : null;
  const r = await runWrk({
    url: server.url,
    connections: CONNECTIONS,
    seconds: SECONDS,
    script: script(s),
    // the worker's CPU counts as the server's: it shares core 0 with the api
    serverPids: [server.child.pid as number, ...(worker ? [worker.child.pid as number] : [])],
    cpuBound: s.cpuBound,
  });
  const redis1 = await redisCpu(redis);
  const redisUs = (redis1.us - redis0.us) / Math.max(1, r.requests);
  // GET / MGET commands a request: 1 unbatched, 1 / (requests a batch) batched
  const reads = (redis1.reads - redis0.reads) / Math.max(1, r.requests);
  const m = { ...r, redisUs };
  console.log(
    `${line(s.name, m, 24)}  Redis ${redisUs.toFixed(1)} µs/req${reads > 0.001 ? `, ${reads.toFixed(3)} reads/req` : ''}`,
  );
  if (counts0 && PROBE)
    console.log(
      `${''.padEnd(24)} per request: ${perRequest(counts0, await probeCounts(pid, PROBE.dir), r.requests)}`,
    );
  return m;
}

/** One pass over the target's aliases (Redis and the LRU hold them), then 2 s of load. */
async function warm(s: Scenario, server: { child: ChildProcess; url: string }): Promise<void> {
  const pids = [server.child.pid as number];
  await runWrk({
    url: server.url,
    connections: 10,
    seconds: 60,
    script: script(s, s.span),
    serverPids: pids,
  });
  await runWrk({
    url: server.url,
    connections: CONNECTIONS,
    seconds: 2,
    script: script(s),
    serverPids: pids,
  });
}

/**
 * The requests of a counted run (see lib/instructions): uncounted warm-up, then the windows
 * (BENCH_COUNT=<warm>,<window>,<windows>).
 */
const [warmCount, windowCount, windowsCount] = (process.env.BENCH_COUNT ?? '40000,20000,5')
  .split(',')
  .map(Number);
const COUNT = { warm: warmCount, window: windowCount, windows: windowsCount, idleMs: 10_000 };

/**
 * Instructions per request (callgrind) of the raw 302, of the hot api with and without a user
 * agent, and of the cold api: the repeatable figures beside the wall-clock ones. Each server is started afresh under
 * valgrind; the api with STATS_FLUSH_MS=10000, because under valgrind it serves ~2 000 requests
 * a second, and a 500 ms flush would then write ~1 000 visits at a time: twenty times the
 * per-visit flush cost of full speed, where a flush takes FLUSH_AT (20 000) visits. Skipped
 * without valgrind or with BENCH_INSTRUCTIONS=0.
 */
async function countAll(active: Scenario[]): Promise<void> {
  const wanted = active.filter((s) => COUNTED.includes(s.name));
  if (!wanted.length || process.env.BENCH_INSTRUCTIONS === '0') return;
  if (!haveValgrind()) {
    console.log('\ninstructions per request: skipped (no valgrind; apt-get install valgrind)');
    return;
  }
  console.log(
    `\ninstructions per request (callgrind; user space only: the kernel's socket work, alike for every server, is left out).\n` +
      `${COUNT.windows} windows of ${COUNT.window} requests after ${COUNT.warm} uncounted; the quietest window is the figure (see bench/lib/instructions.ts)`,
  );
  const counts = new Map<string, Counted>();
  const keep = process.env.BENCH_CALLGRIND_DIR;
  const count = async (s: Scenario, server: CountedServer) => {
    const { headers, requests } = script(s);
    const c = await countInstructions(server, requests, headers, COUNT);
    counts.set(s.name, c);
    if (keep) {
      mkdirSync(keep, { recursive: true });
      const name = s.name.replace(/[^a-z0-9]+/gi, '-');
      c.files.forEach((f, w) => copyFileSync(f, join(keep, `${name}.${w + 1}.out`)));
    }
    const raw = counts.get(COUNTED[0]);
    const vs = raw && s.name !== COUNTED[0] ? `  ${(c.min / raw.min).toFixed(2)}× raw` : '';
    console.log(
      `${s.name.padEnd(24)} ${formatCount(c).padStart(22)} instructions/request${vs}   windows: ${formatWindows(c)}`,
    );
    if (c.idlePerSecond !== undefined) console.log(`${''.padEnd(24)} ${formatIdle(c)}`);
  };
  for (const s of wanted.filter((w) => w.server === 'raw')) {
    const server = await startCounted([baselineScript(), 'raw302'], serverEnv(), /listening (\d+)/);
    try {
      await count(s, server);
    } finally {
      await stopCounted(server);
    }
  }
  for (const build of ['hot', 'hotB', 'cold']) {
    const api = wanted.filter((w) => w.server === build);
    if (!api.length) continue;
    const port = await freePort();
    const server = await startCounted(
      [apiMain(build)],
      serverEnv({ PORT: String(port), STATS_FLUSH_MS: '10000', ...kinds[build][1] }),
      /api listening/,
      port,
    );
    await waitHealthy(`http://127.0.0.1:${port}`, 120_000, server.child);
    try {
      for (const s of api) await count(s, server);
    } finally {
      await stopCounted(server);
    }
  }
}

/** The server of each kind of scenario, and its environment. */
const kinds: Record<string, [ServerKind, Record<string, string>?]> = {
  raw: ['raw302'],
  hot: ['api'],
  hotB: ['api'],
  // the cold api first: its warm-up fills Redis with every link, for the Redis baselines too
  cold: ['api', { LINK_CACHE_SIZE: '0' }],
  coldB: ['api', { LINK_CACHE_SIZE: '0' }],
  redis: ['redis302'],
  mget: ['mget302'],
};

/** The scenarios countAll counts, the baseline first (mixed visitors: visitors the memo has not seen with that agent, the city lookup included). */
const COUNTED = [
  'baseline raw 302',
  'api hot',
  'api hot, no UA',
  'api hot, mixed visitors',
  'api hot (B)',
  'api hot, mixed visitors (B)',
  'api cold',
];

async function main(): Promise<void> {
  ensureWrk();
  const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
  // BENCH_REDIS=cluster: every server (api, worker, baselines) on a cluster of the run's own
  const redisSetup = await benchRedis();
  console.log(
    `seeding ${LINKS} links into ${DATABASE_URL.replace(/\/\/[^@]*@/, '//')} (Redis prefix ${REDIS_PREFIX}) ...`,
  );
  // the webhook's receiver: counts the visits it is sent
  const delivered = { deliveries: 0, visits: 0 };
  const receiver = createHttpServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      delivered.deliveries += 1;
      delivered.visits += (JSON.parse(body) as { data: { visits: unknown[] } }).data.visits.length;
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  await seed(`http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`);
  const hot = { span: HOT_SET, browser: true } as const;
  // in each round, a baseline and then the api scenarios measured against it
  const scenarios: Scenario[] = [
    { name: 'baseline raw 302', server: 'raw', prefix: 'bn', ...hot, cpuBound: true, runs: [] },
    { name: 'api hot', server: 'hot', prefix: 'bn', ...hot, runs: [] },
    { name: 'api hot, no UA', server: 'hot', prefix: 'bn', ...hot, browser: false, runs: [] },
    { name: 'api hot, mixed visitors', server: 'hot', prefix: 'bn', ...hot, mix: true, runs: [] },
    { name: 'api hot, targeted', server: 'hot', prefix: 'bt', ...hot, mix: true, runs: [] },
    { name: 'api hot, branded', server: 'hot', prefix: 'bd', ...hot, runs: [] },
    { name: 'api hot + worker', server: 'hot', prefix: 'bn', ...hot, worker: true, runs: [] },
    {
      name: 'api hot + worker, webhook',
      server: 'hot',
      prefix: 'bw',
      ...hot,
      worker: true,
      runs: [],
    },
    {
      name: 'baseline Redis GET + 302',
      server: 'redis',
      prefix: 'bn',
      span: LINKS,
      browser: true,
      runs: [],
    },
    { name: 'api cold', server: 'cold', prefix: 'bn', span: LINKS, browser: true, runs: [] },
    {
      name: 'baseline MGET + 302',
      server: 'mget',
      prefix: 'bn',
      span: LINKS,
      browser: true,
      runs: [],
    },
    // the cold api's floor without visit recording (what recording adds to its tail)
    {
      name: 'api cold, no UA',
      server: 'cold',
      prefix: 'bn',
      span: LINKS,
      browser: false,
      runs: [],
    },
    // BENCH_API_B: the other build, on the same requests as its A counterparts
    ...(API_B
      ? [
          {
            name: 'api cold (B)',
            server: 'coldB',
            prefix: 'bn',
            span: LINKS,
            browser: true,
            runs: [],
          },
          { name: 'api hot (B)', server: 'hotB', prefix: 'bn', ...hot, runs: [] },
          {
            name: 'api hot, mixed visitors (B)',
            server: 'hotB',
            prefix: 'bn',
            ...hot,
            mix: true,
            runs: [],
          },
        ]
      : []),
  ] as Scenario[];
  const only = (process.env.BENCH_ONLY ?? '').split(';').filter(Boolean);
  const active = only.length
    ? scenarios.filter((s) =>
        only.some((o) => (o.startsWith('=') ? s.name === o.slice(1) : s.name.includes(o))),
      )
    : scenarios;
  const servers = new Map<string, { child: ChildProcess; url: string }>();
  const redisClient = testRedis();
  let generatorOk = true;
  try {
    const needed = ['cold', 'coldB', 'hot', 'hotB', 'raw', 'redis', 'mget'].filter((k) =>
      active.some((s) => s.server === k || (k === 'cold' && s.span === LINKS)),
    );
    for (const k of needed) servers.set(k, await start(kinds[k][0], kinds[k][1], apiMain(k)));
    const warmOrder = [...active].sort((a, b) =>
      a.server === 'cold' ? -1 : b.server === 'cold' ? 1 : 0,
    );
    if (!active.some((s) => s.server === 'cold') && servers.has('cold'))
      await warm(
        scenarios.find((s) => s.server === 'redis') as Scenario,
        servers.get('cold') as { child: ChildProcess; url: string },
      );
    for (const s of warmOrder)
      await warm(s, servers.get(s.server) as { child: ChildProcess; url: string });
    console.log(
      `\n${CONNECTIONS} connections, ${SECONDS} s per run, ${rounds} round(s), loopback, ${cpus().length} cores; Redis: ${redisSetup.mode}; server on core 0, wrk on core 1\n${HEADER}\n`,
    );
    if (PROBE) console.log(`probe: counts per request under each run; its files in ${PROBE.dir}`);
    let worker: { child: ChildProcess } | null = null;
    for (let round = 0; round < rounds; round++) {
      for (const s of active) {
        if (s.span === LINKS) await refill(servers, redisClient);
        if (s.worker && !worker) {
          // started before the first run that has one, and given two folds to take in the
          // visits the runs without a worker left pending, so that no run pays for them
          worker = await start('worker');
          await new Promise((resolve) => setTimeout(resolve, 2 * FOLD_SECONDS * 1000 + 1000));
        } else if (!s.worker && worker) {
          await stop(worker.child);
          worker = null;
        }
        s.runs.push(
          await measure(
            s,
            servers.get(s.server) as { child: ChildProcess; url: string },
            redisClient,
            worker,
          ),
        );
      }
      if (worker) await stop(worker.child);
      worker = null;
      console.log('');
    }
    await countAll(active);
  } finally {
    receiver.close();
    redisClient.disconnect();
    await Promise.all([...servers.values()].map((s) => stop(s.child)));
    await cleanup(redisSetup);
  }

  generatorOk = checkHeadroom(active.map((s) => [s.name, s.runs]));
  const rawRuns = active.find((s) => s.server === 'raw')?.runs ?? [];
  if (rawRuns.length > 1) {
    // the ceiling itself must hold still: a baseline that drifts makes the ratios drift with it
    const us = rawRuns.map((r) => r.serverUs);
    const spread = Math.max(...us) / Math.min(...us) - 1;
    console.log(
      `\nbaseline stability: raw 302 CPU per request by round ${us.map((x) => x.toFixed(1)).join(', ')} µs, spread ${(spread * 100).toFixed(0)} %` +
        (spread > 0.1 ? ' — UNSTABLE: read the ratios round by round' : ' (ok: ≤ 10 %)'),
    );
  }
  if (rounds > 1) {
    console.log('\nmedians over rounds');
    for (const s of active) console.log(line(s.name, medianOf(s.runs), 24));
  }
  const errors = active.filter((s) => s.runs.some((r) => r.errors > 0));
  if (errors.length)
    console.log(
      `\nERRORS (non-3xx answers or socket errors) in ${errors.map((s) => s.name).join(', ')}`,
    );
  if (API_B) {
    console.log(
      `\nA/B against ${API_B} (this build / B, median of the rounds; rounds in brackets)`,
    );
    for (const [a, b] of [
      ['api hot', 'api hot (B)'],
      ['api hot, mixed visitors', 'api hot, mixed visitors (B)'],
      ['api cold', 'api cold (B)'],
    ]) {
      const [sa, sb] = [a, b].map((n) => active.find((s) => s.name === n));
      if (!sa || !sb) continue;
      const of = (f: (r: RunResult) => number) => {
        const each = sa.runs.map((r, i) => f(r) / f(sb.runs[i]));
        return `${median(each).toFixed(2)} (${each.map((x) => x.toFixed(2)).join(', ')})`;
      };
      console.log(
        `  ${a.padEnd(24)} req/s ${of((r) => r.rps)}   CPU per request ${of((r) => r.serverUs)}   p99 ${of((r) => r.p99Ms)}`,
      );
    }
  }
  if (active.length < scenarios.length) {
    process.exitCode = generatorOk && !errors.length ? 0 : 1;
    return;
  }

  const [raw, apiHot, noUa, mixed, targeted, branded, withWorker, webhook, redis, cold, mget] =
    scenarios;
  /** The median over rounds of a / b, each round's runs side by side. */
  const ratio = (a: Scenario, b: Scenario, f: (r: RunResult) => number) =>
    median(a.runs.map((r, i) => f(r) / f(b.runs[i])));
  const rps = (r: RunResult) => r.rps;
  const cpu = (r: RunResult) => r.serverUs;
  const check = (ok: boolean) => (ok ? 'ok  ' : 'MISS');
  const row = (ok: boolean, label: string, value: string, goal: string) =>
    console.log(`  ${check(ok)} ${label.padEnd(44)} ${value.padStart(14)}  (${goal})`);
  const f2 = (x: number) => x.toFixed(2);
  console.log("\ntargets (ratios: median of the rounds' ratios)");
  const hotRps = ratio(apiHot, raw, rps);
  const hotCpu = ratio(apiHot, raw, cpu);
  row(hotRps >= 0.9, 'api hot (recorded) / raw 302, req/s', f2(hotRps), '>= 0.90');
  const byRound = (a: Scenario, b: Scenario, f: (r: RunResult) => number) =>
    a.runs.map((r, i) => f2(f(r) / f(b.runs[i]))).join(', ');
  console.log(`       (rounds: ${byRound(apiHot, raw, rps)})`);
  row(hotCpu <= 1.15, 'api hot (recorded) / raw 302, CPU per request', f2(hotCpu), '<= 1.15');
  const noUaRps = ratio(noUa, raw, rps);
  row(noUaRps >= 0.9, 'api hot, no UA / raw 302, req/s', f2(noUaRps), '>= 0.90');
  // the same visitor mix on both: what the 70 rules cost
  const tRps = ratio(targeted, mixed, rps);
  row(tRps >= 0.9, 'api hot, targeted / plain, mixed visitors, req/s', f2(tRps), '>= 0.90');
  const hookRps = ratio(webhook, withWorker, rps);
  row(hookRps >= 0.95, 'webhook subscribed / none (api + worker), req/s', f2(hookRps), '>= 0.95');
  const coldRps = ratio(cold, redis, rps);
  row(coldRps >= 0.8, 'api cold (recorded) / Redis GET + 302, req/s', f2(coldRps), '>= 0.80');
  const coldP99 = medianOf(cold.runs).p99Ms;
  row(
    coldP99 < 10,
    `api cold p99 at ${CONNECTIONS} connections`,
    `${coldP99.toFixed(2)} ms`,
    '< 10 ms',
  );
  const hotP99 = medianOf(apiHot.runs).p99Ms;
  row(
    hotP99 < 10,
    `api hot p99 at ${CONNECTIONS} connections`,
    `${hotP99.toFixed(2)} ms`,
    '< 10 ms',
  );
  console.log('\nbeside them (not targets)');
  console.log(
    `       api hot, branded / raw 302, req/s            ${f2(ratio(branded, raw, rps))}`,
  );
  console.log(`       api hot, no UA / raw 302, CPU per request    ${f2(ratio(noUa, raw, cpu))}`);
  console.log(`       api cold / MGET + 302, req/s                 ${f2(ratio(cold, mget, rps))}`);
  console.log(
    `       webhook receiver: ${delivered.deliveries} deliveries, ${delivered.visits} visits (one a second at most)`,
  );
  if (!generatorOk || errors.length) process.exitCode = 1;
}

runBench(main);
