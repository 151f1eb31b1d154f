/**
 * `npm run bench:health`: what destination health costs the worker's other jobs
 * (docs/link-health.md#how-it-runs-and-at-what-cost). One worker (the production WorkerModule,
 * in this process: the jobs share its event loop and threads as they do in a worker process) on a
 * database, Redis prefix and storage folder of the run's own (dropped at the end), and a stub
 * target (a Node process of its own answering 200 at once, on 127.0.0.1–127.0.0.250: 250 hosts,
 * allowed by WEBHOOK_ALLOW_HOSTS) for HEALTH_BENCH_LINKS links (default 20 000).
 *
 * Measured in the same run, in turn, HEALTH_BENCH_ROUNDS times (default 2) each:
 *   idle          the health job has nothing due;
 *   scheduled     every link due, probed by the worker's own job as in production (its scheduler
 *                 ticks every 10 s: a claim of 100, the probes HEALTH_CONCURRENCY at a time, the
 *                 batch's write);
 *   back-to-back  the same plus LinkHealthRunner.probeDue in a loop, a claim after another, every
 *                 link due again at once: the job never idle (a worst case, far past what the
 *                 scheduler asks).
 * In each: HEALTH_BENCH_RENDERS QR renders (default 200, a logo on each, QrRenderer.render as the
 * qr-render job calls it, 2 at a time) timed one by one, and HEALTH_BENCH_FOLDS folds (default 4)
 * of 500 links' pending visits (5 profile fields each, written to Redis as the recorder does)
 * timed with StatsFold.fold. Reports p50 / p99 of both, and the probes a second.
 * Results on stdout and in bench-results/health-load.json.
 */
import 'reflect-metadata';

import { ChildProcess, spawn } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import sharp from 'sharp';

import { freePort, removeRun, RUN, runBench, runEnvironment } from './lib/run';

const LINKS = Number(process.env.HEALTH_BENCH_LINKS ?? 20_000);
const ROUNDS = Number(process.env.HEALTH_BENCH_ROUNDS ?? 2);
const RENDERS = Number(process.env.HEALTH_BENCH_RENDERS ?? 200);
const FOLDS = Number(process.env.HEALTH_BENCH_FOLDS ?? 4);
const FOLD_LINKS = 500;
const HOSTS = 250;
const RENDER_CONCURRENCY = 2;

const pct = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The stub target: a process of its own, so its work is not the worker's. */
async function startTarget(port: number): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    [
      '-e',
      `require('node:http').createServer((q, s) => { s.writeHead(200, { 'Content-Type': 'text/html' }); s.end('ok'); }).listen(${port}, '0.0.0.0', () => console.log('up'))`,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  await new Promise<void>((resolve, reject) => {
    child.stdout?.once('data', () => resolve());
    child.once('exit', (code) => reject(new Error(`target exited with ${code}`)));
  });
  return child;
}

const PHASES = ['idle', 'scheduled', 'back-to-back'] as const;

interface Phase {
  name: (typeof PHASES)[number];
  renders: number[];
  folds: number[];
  probes: number;
  seconds: number;
}

async function main(): Promise<void> {
  const port = await freePort();
  const storage = mkdtempSync(join(tmpdir(), 'lm-health-bench-'));
  const hosts = Array.from({ length: HOSTS }, (_, i) => `127.0.0.${i + 1}:${port}`);
  const env = runEnvironment('hl', storage, {
    LOG_LEVEL: 'warn',
    // folds and probes are run by the bench; the schedulers' own stay out of the way (folds) or
    // add to the busy phase (health ticks)
    STATS_FOLD_SECONDS: '3600',
    SNAPSHOT_SECONDS: '0',
    HEALTH_HOST_SECONDS: '1',
    WEBHOOK_ALLOW_HOSTS: hosts.join(','),
  });
  // the apps' modules read their config when they load: imported once the environment is set
  const { runMigrations } = await import('../libs/database/src/data-source');
  const { createWorker } = await import('../apps/worker/src/bootstrap');
  const { LinkHealthRunner } = await import('../apps/worker/src/health/link-health-runner');
  const { QrRenderer } = await import('../apps/worker/src/qr/qr-renderer');
  const { StatsFold } = await import('../libs/stats/src/fold/stats-fold');
  const { StatsKeys, dayKey, hourKey, profileField } = await import('../libs/stats/src/keys');
  const { dimensions } = await import('../libs/stats/src/record/visit-classifier');
  const { RedisService } = await import('../libs/redis/src/redis.service');
  const { AppConfig } = await import('../libs/config/src/app-config');
  const { DataSource } = await import('typeorm');

  await runMigrations(env.DATABASE_URL);
  const target = await startTarget(port);
  const worker = await createWorker({ logger: false });
  await worker.init();
  try {
    const db = worker.get(DataSource);
    const redis = worker.get(RedisService);
    const config = worker.get(AppConfig);
    const runner = worker.get(LinkHealthRunner);
    const renderer = worker.get(QrRenderer);
    const fold = worker.get(StatsFold);
    const keys = new StatsKeys(redis, config.STATS_PARTITIONS);

    const [user] = await db.query(
      `INSERT INTO users (email, username, password_hash, plan_id, api_key_hash, api_key_enc)
       SELECT $1, $2, 'x', (SELECT id FROM plans WHERE free ORDER BY id LIMIT 1),
              encode(sha256(convert_to($3, 'UTF8')), 'hex'), 'x'
       RETURNING id`,
      [`health${RUN}@example.com`, `health${RUN}`, `healthkey${RUN}`],
    );
    // the probed links: visited today (what enrolment reads), on 250 hosts of the stub target;
    // nothing due until a phase asks
    const probed: Array<{ id: number }> = await db.query(
      `INSERT INTO links (user_id, kind, alias, url, title)
       SELECT $1, 'link', 'h' || n, 'http://127.0.0.' || (n % ${HOSTS} + 1) || ':${port}/page/' || n, ''
         FROM generate_series(1, ${LINKS}) AS n
       RETURNING id`,
      [user.id],
    );
    await db.query(
      `INSERT INTO link_stats_daily (link_id, day, clicks, uniques)
       SELECT id, current_date, 1, 1 FROM links WHERE user_id = $1`,
      [user.id],
    );
    const folded: Array<{ id: number }> = await db.query(
      `INSERT INTO links (user_id, kind, alias, url, title)
       SELECT $1, 'link', 'f' || n, 'https://fold.example/' || n, '' FROM generate_series(1, ${FOLD_LINKS}) AS n
       RETURNING id`,
      [user.id],
    );
    const enrolled = await runner.enrol(1);
    await db.query(`UPDATE link_health SET next_at = now() + interval '1 day'`);
    console.log(`${probed.length} links to probe (${enrolled} enrolled), ${folded.length} to fold`);

    const logo = await sharp({
      create: { width: 256, height: 256, channels: 4, background: '#1a73e8' },
    })
      .png()
      .toBuffer();
    const white = { r: 255, g: 255, b: 255 };
    const black = { r: 0, g: 0, b: 0 };
    let serial = 0;
    const renders = async (): Promise<number[]> => {
      const out: number[] = [];
      const lanes = Array.from({ length: RENDER_CONCURRENCY }, async () => {
        while (out.length < RENDERS) {
          const started = performance.now();
          serial += 1;
          await renderer.render({
            text: `http://short.bench/q/c${serial}`,
            background: white,
            foreground: black,
            logo,
          });
          out.push(performance.now() - started);
        }
      });
      await Promise.all(lanes);
      return out;
    };

    // pending visits as the recorder leaves them: profile fields, visitor sketches, dirty sets
    const agents = [
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36',
      'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1',
    ];
    const ips = ['193.99.144.80', '8.8.8.8', '81.2.69.160', '2.16.0.1', '200.160.2.3'];
    const seed = async (): Promise<void> => {
      const now = Date.now();
      const day = dayKey(now);
      const hour = hourKey(now);
      const pipeline = redis.client.pipeline();
      for (const { id } of folded) {
        for (let v = 0; v < 5; v++) {
          const field = profileField(
            hour,
            dimensions(ips[v], agents[v % 2], 'https://www.google.com/', 'en-US,en;q=0.9'),
          );
          pipeline.hincrby(keys.pending(id), field, 1 + (v % 3));
          pipeline.pfadd(keys.visitors(id, day), `visitor${id}-${v}`);
        }
        pipeline.sadd(keys.of(id).dirty, String(id));
      }
      await pipeline.exec();
    };
    const folds = async (): Promise<number[]> => {
      const out: number[] = [];
      for (let i = 0; i < FOLDS; i++) {
        await seed();
        const started = performance.now();
        const result = await fold.fold();
        out.push(performance.now() - started);
        if (result.links < FOLD_LINKS)
          throw new Error(`a fold took ${result.links} links, ${FOLD_LINKS} expected`);
      }
      return out;
    };

    const phases: Phase[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      for (const name of PHASES) {
        // scheduled: every link due, probed by the worker's own job (a tick every 10 s, 100
        // links a tick); back-to-back: this loop on top, a claim after another
        if (name !== 'idle') await db.query(`UPDATE link_health SET next_at = now()`);
        let busy = name === 'back-to-back';
        let probes = 0;
        const started = Date.now();
        const since = new Date(started);
        const probing = (async () => {
          while (busy) {
            const r = await runner.probeDue();
            probes += r.probed;
            if (!r.probed && !r.deferred) {
              // everything probed: due again at once (a queue that never empties)
              await db.query(`UPDATE link_health SET next_at = now()`);
              await sleep(10);
            }
          }
        })();
        if (busy) await sleep(1000); // the loop under way before the measures
        const r = await renders();
        const f = await folds();
        busy = false;
        await probing;
        const seconds = (Date.now() - started) / 1000;
        if (name === 'scheduled') {
          const [{ n }] = await db.query(
            `SELECT count(*)::int AS n FROM link_health WHERE checked_at >= $1`,
            [since],
          );
          probes = n;
        }
        // nothing due in the phase that follows unless it asks
        await db.query(`UPDATE link_health SET next_at = now() + interval '1 day'`);
        phases.push({ name, renders: r, folds: f, probes, seconds });
        console.log(
          `round ${round + 1} ${name}: QR render p50 ${pct(r, 50).toFixed(1)} ms, p99 ${pct(r, 99).toFixed(1)} ms; fold of ${FOLD_LINKS} links p50 ${pct(f, 50).toFixed(0)} ms, p99 ${pct(f, 99).toFixed(0)} ms; ${(probes / seconds).toFixed(0)} probes/s`,
        );
      }
    }

    const summary = PHASES.map((name) => {
      const of = phases.filter((p) => p.name === name);
      const r = of.flatMap((p) => p.renders);
      const f = of.flatMap((p) => p.folds);
      const probes = of.reduce((n, p) => n + p.probes, 0);
      const seconds = of.reduce((n, p) => n + p.seconds, 0);
      return {
        health: name,
        renders: r.length,
        renderP50: Number(pct(r, 50).toFixed(1)),
        renderP99: Number(pct(r, 99).toFixed(1)),
        folds: f.length,
        foldP50: Number(pct(f, 50).toFixed(0)),
        foldP99: Number(pct(f, 99).toFixed(0)),
        probesPerSecond: Number((probes / seconds).toFixed(0)),
      };
    });
    console.log(
      `\nhealth job     QR render p50 / p99     fold (${FOLD_LINKS} links) p50 / p99   probes/s`,
    );
    for (const s of summary)
      console.log(
        `${s.health.padEnd(13)}  ${`${s.renderP50} / ${s.renderP99} ms`.padEnd(24)}  ${`${s.foldP50} / ${s.foldP99} ms`.padEnd(28)}  ${s.probesPerSecond}`,
      );
    await mkdir('bench-results', { recursive: true });
    await writeFile(
      'bench-results/health-load.json',
      JSON.stringify(
        {
          links: LINKS,
          hosts: HOSTS,
          concurrency: config.HEALTH_CONCURRENCY,
          rounds: ROUNDS,
          summary,
        },
        null,
        2,
      ),
    );
  } finally {
    await worker.close();
    target.kill('SIGTERM');
    await removeRun({ ...env, STORAGE_DIR: storage });
  }
}

runBench(main);
