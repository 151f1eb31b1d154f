/**
 * Link snapshot benchmark: `npm run bench:snapshot` (SNAPSHOT_BENCH_LINKS, default 1 000 000).
 *
 * Runs from the sources (no build) on a database, Redis prefix and storage folder of its own (all
 * dropped at the end). Targets (docs/link-permanence.md): written in under 10 s, loaded in under
 * 5 s, for a million links.
 *
 * 1. Seed: LINKS short links inserted with generate_series in batches of 100 000, a mix of what
 *    the snapshot carries: every 10th with country and language rules, every 7th with
 *    parameters, every 20th on a branded domain, every 50th with an expiry and an expiration
 *    redirect, every 100th with a click limit (its Redis counter set), every 1000th disabled;
 *    one blocklist entry matching every 500th.
 * 2. Write: the worker's LinkSnapshotWriter, in this process (its queries, the screening, the
 *    click counters, the file), twice: seconds, bytes, this process's peak RSS over the write.
 * 3. Load: a fresh Node process that only builds the api's LinkSnapshot and loads the file
 *    (signature check and index, in slices on the event loop): seconds, the longest event-loop
 *    delay while loading (what a request could have waited), the memory the loaded snapshot
 *    holds (RSS, heap and external after a GC, against before), and the lookup cost of 100 000
 *    random aliases (decode + toCached; the first visit of a link in an outage).
 *
 * Results go to stdout and bench-results/snapshot.json.
 */
import 'reflect-metadata';

import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';

import { DataSource } from 'typeorm';

import { AppConfig, loadConfig } from '../libs/config/src';
import { dataSourceOptions, runMigrations } from '../libs/database/src/data-source';
import { RedisService } from '../libs/redis/src';
import { LinkSnapshot } from '../apps/api/src/permanence/link-snapshot';
import { LinkSnapshotWriter } from '../apps/worker/src/permanence/link-snapshot-writer';
import { removeRun, RUN, runBench, runEnvironment } from './lib/run';

const LINKS = Number(process.env.SNAPSHOT_BENCH_LINKS ?? 1_000_000);
const SEED_BATCH = 100_000;
const mb = (bytes: number) => Math.round(bytes / 1024 / 1024);

async function seed(db: DataSource): Promise<void> {
  const [user] = await db.query(
    `INSERT INTO users (email, username, password_hash, plan_id, api_key_hash, api_key_enc)
     SELECT $1, $2, 'x', (SELECT id FROM plans WHERE free ORDER BY id LIMIT 1),
            encode(sha256(convert_to($3, 'UTF8')), 'hex'), 'x'
     RETURNING id`,
    [`snap${RUN}@example.com`, `snap${RUN}`, `snapkey${RUN}`],
  );
  const [domain] = await db.query(
    `INSERT INTO domains (user_id, domain, host, redirect_root, redirect_404, verified_at)
     VALUES ($1, 'https://brand.bench', 'brand.bench', 'https://brand.bench/home', '', now()) RETURNING id`,
    [user.id],
  );
  await db.query(`INSERT INTO blocklist (entry) VALUES ('blocked.bench')`);
  for (let from = 1; from <= LINKS; from += SEED_BATCH) {
    const to = Math.min(LINKS, from + SEED_BATCH - 1);
    await db.query(
      `INSERT INTO links (user_id, kind, alias, url, title, domain_id, geo_targets, language_targets,
                          parameters, expires_at, expiration_redirect, disabled_at, click_limit)
       SELECT $1, 'link', 'b' || n,
              CASE WHEN n % 500 = 0 THEN 'https://blocked.bench/' || n
                   ELSE 'https://www.destination-example.com/articles/2026/' || n || '?ref=bench' END,
              'Bench link ' || n,
              CASE WHEN n % 20 = 0 THEN $2::int END,
              CASE WHEN n % 10 = 0 THEN jsonb_build_array(
                jsonb_build_object('location', 'DE', 'link', 'https://de.destination-example.com/' || n),
                jsonb_build_object('location', 'FR', 'link', 'https://fr.destination-example.com/' || n)) END,
              CASE WHEN n % 10 = 0 THEN jsonb_build_array(
                jsonb_build_object('language', 'es', 'link', 'https://es.destination-example.com/' || n)) END,
              CASE WHEN n % 7 = 0 THEN jsonb_build_array(jsonb_build_object('name', 'utm_source', 'value', 'bench')) END,
              CASE WHEN n % 50 = 0 THEN now() + interval '30 days' END,
              CASE WHEN n % 50 = 0 THEN 'https://www.destination-example.com/expired' END,
              CASE WHEN n % 1000 = 0 THEN now() END,
              CASE WHEN n % 100 = 0 THEN 1000 END
         FROM generate_series($3::int, $4::int) AS n`,
      [user.id, domain.id, from, to],
    );
    process.stdout.write(`\rseeded ${to} links`);
  }
  process.stdout.write('\n');
  await db.query('ANALYZE links');
}

/** The loading half, in a process of its own (`--load`): prints one JSON line. */
async function load(): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc ?? (() => undefined);
  const config = loadConfig();
  const snapshot = new LinkSnapshot({ ready: false } as RedisService, config as AppConfig);
  gc();
  const before = process.memoryUsage();
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  const started = process.hrtime.bigint();
  const ok = await snapshot.reload();
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  delay.disable();
  if (!ok) throw new Error('snapshot not loaded');
  gc();
  const after = process.memoryUsage();
  const n = snapshot.links;
  const lookups = 100_000;
  const t0 = process.hrtime.bigint();
  let found = 0;
  for (let i = 0; i < lookups; i++) {
    const alias = `b${1 + Math.floor(Math.random() * n)}`;
    if (snapshot.link(alias)) found += 1;
  }
  const lookupUs = Number(process.hrtime.bigint() - t0) / 1e3 / lookups;
  console.log(
    JSON.stringify({
      links: n,
      seconds: ms / 1000,
      maxLoopDelayMs: Math.round(delay.max / 1e6),
      rssMb: mb(after.rss - before.rss),
      heapMb: mb(after.heapUsed - before.heapUsed),
      // `external` includes the ArrayBuffers (the file's bytes)
      externalMb: mb(after.external - before.external),
      lookupUs: Math.round(lookupUs * 100) / 100,
      found,
    }),
  );
}

async function loadInChild(env: NodeJS.ProcessEnv): Promise<Record<string, number>> {
  const child = spawn(
    process.execPath,
    [
      '--expose-gc',
      '-r',
      'ts-node/register/transpile-only',
      '-r',
      'tsconfig-paths/register',
      __filename,
      '--load',
    ],
    { env, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  const code = await new Promise<number>((resolve) => child.on('exit', (c) => resolve(c ?? 1)));
  const line = out.trim().split('\n').pop() ?? '';
  if (code !== 0 || !line.startsWith('{')) throw new Error(`loader failed (${code}): ${out}`);
  return JSON.parse(line) as Record<string, number>;
}

async function main(): Promise<void> {
  const storage = await mkdtemp(join(tmpdir(), 'snapshot-bench-'));
  const env = runEnvironment('sb', storage, { SNAPSHOT_SECONDS: '60' });
  const config = loadConfig();
  let db: DataSource | undefined;
  let redis: RedisService | undefined;
  try {
    await runMigrations(env.DATABASE_URL);
    db = await new DataSource(dataSourceOptions(env.DATABASE_URL, 4)).initialize();
    redis = new RedisService(config);
    const seedStarted = Date.now();
    await seed(db);
    const seedSeconds = (Date.now() - seedStarted) / 1000;
    const limited: Array<{ id: number }> = await db.query(
      'SELECT id FROM links WHERE click_limit IS NOT NULL',
    );
    for (let i = 0; i < limited.length; i += 1000)
      await Promise.all(
        limited.slice(i, i + 1000).map((l) => redis!.client.set(redis!.key('clicklimit', l.id), 3)),
      );

    const writer = new LinkSnapshotWriter(db, redis, config);
    const writes: Array<{
      seconds: number;
      cpuSeconds: number;
      bytes: number;
      links: number;
      peakRssMb: number;
    }> = [];
    for (let round = 0; round < 2; round++) {
      let peak = process.memoryUsage().rss;
      const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50);
      const cpu = process.cpuUsage();
      const r = await writer.writeNow();
      const used = process.cpuUsage(cpu);
      clearInterval(sampler);
      const cpuSeconds = Math.round((used.user + used.system) / 1e4) / 100;
      writes.push({
        seconds: r.ms / 1000,
        cpuSeconds,
        bytes: r.bytes,
        links: r.links,
        peakRssMb: mb(peak),
      });
      console.log(
        `write ${round + 1}: ${r.links} links, ${mb(r.bytes)} MB in ${(r.ms / 1000).toFixed(2)} s, ` +
          `${cpuSeconds} s of the writer's CPU (peak RSS ${mb(peak)} MB)`,
      );
    }
    const loaded = await loadInChild(env);
    console.log(
      `load: ${loaded.links} links in ${loaded.seconds.toFixed(2)} s; longest event-loop delay ${loaded.maxLoopDelayMs} ms; ` +
        `memory held: RSS +${loaded.rssMb} MB (heap +${loaded.heapMb} MB, buffers +${loaded.externalMb} MB); ` +
        `lookup ${loaded.lookupUs} µs`,
    );
    const result = {
      links: LINKS,
      seedSeconds,
      writes,
      load: loaded,
      machine: { cpus: cpus().length, loadavg: loadavg().map((l) => Math.round(l * 100) / 100) },
      targets: { writeSeconds: 10, loadSeconds: 5 },
    };
    await mkdir('bench-results', { recursive: true });
    await writeFile('bench-results/snapshot.json', `${JSON.stringify(result, null, 2)}\n`);
  } finally {
    await db?.destroy().catch(() => undefined);
    await redis?.client.quit().catch(() => undefined);
    await removeRun({ ...env, STORAGE_DIR: storage });
  }
}

runBench(process.argv.includes('--load') ? load : main);
