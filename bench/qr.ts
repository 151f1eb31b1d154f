/**
 * QR rendering benchmark: `npm run bench:qr` (QR_BENCH_COUNT, QR_BENCH_CLIENTS, QR_CONCURRENCY;
 * QR_BENCH_STORAGE=<dir>: where the run's storage folder is made, the OS temporary folder by
 * default; BENCH_PROFILE=<dir> writes the worker's CPU profile there).
 *
 * Runs the built api and the built worker (dist, `npm run build` first, which the script does)
 * as processes of their own, so the bench's client, pollers and decoding never share the api's
 * event loop, on a database, Redis prefix and storage folder of their own (all dropped at the
 * end). Every code is a link with a logo from the assets folder.
 *
 * 1. qr/add while the worker is idle (reference): 50 adds from one client, queue paused; these
 *    codes render before the rounds.
 * 2. Throughput, QR_BENCH_ROUNDS (3) interleaved rounds: COUNT adds from CLIENTS clients while
 *    the queue is paused, then the queue is resumed and the worker drains them: images/s from
 *    resume to the last row marked ready (queue → render → files → row ready). Then the
 *    baseline renders the same COUNT payloads through the bare pipeline (qrcode SVG string +
 *    sharp rasterise and composite; no queue, database or files: bench/lib/qr-baseline.ts) at
 *    the same render concurrency, in a process of its own. Medians over the rounds; the ratio is
 *    the median of the rounds' own ratios.
 *    Then qr/add while the worker is busy: another 600 codes are queued and, while the worker
 *    drains them, one client adds a code every 25 ms.
 * 3. Latency: 100 codes added at half the measured throughput; p50/p99 from qr/add to ready.
 * 4. Every PNG the worker wrote is decoded (sharp raw + jsQR) and must be its short link.
 *
 * Ready times are read from the rows (updated_at when the worker marks them ready) on a
 * connection of the bench's own. Results go to stdout and bench-results/qr.json.
 */
import 'reflect-metadata';

import { ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { Agent, request as httpRequest } from 'node:http';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';

import { Queue } from 'bullmq';
import Redis from 'ioredis';
import { Pool } from 'pg';
import sharp from 'sharp';
import { DataSource } from 'typeorm';

import { decodeQr } from '../test/support/qr';
import { processCpuUs, stop } from './lib/harness';
import { BaselineResult, runQrBaseline } from './lib/qr-baseline';
import { freePort, removeRun, RUN, runBench, runEnvironment, startBuilt } from './lib/run';

const COUNT = Number(process.env.QR_BENCH_COUNT ?? 500);
const CLIENTS = Number(process.env.QR_BENCH_CLIENTS ?? 4);
/** Pause between two qr/add probes while the worker drains the backlog (about 40 adds/s). */
const PROBE_GAP = 25;
/** Codes queued for the qr/add-while-busy measurement. */
const BUSY_BACKLOG = 600;
/** Interleaved rounds of (worker drain, baseline) of COUNT codes each. */
const ROUNDS = Number(process.env.QR_BENCH_ROUNDS ?? 3);
const CONCURRENCY =
  Number(process.env.QR_CONCURRENCY) > 0
    ? Number(process.env.QR_CONCURRENCY)
    : availableParallelism();
const PUBLIC_URL = 'http://short.bench';

const pct = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
};
const median = (values: number[]) => pct(values, 50);
const ms = (n: number) => `${n.toFixed(1)} ms`;

/** One drain of the worker: COUNT codes from the queue's resume to the last row marked ready. */
interface Drain {
  images: number;
  seconds: number;
  /** The worker process's CPU (all threads) over the drain, or null when /proc is unreadable. */
  cpuPerImage: number | null;
}

async function makeLogo(): Promise<Buffer> {
  // a 256 px two-colour mark, like a real logo (not a flat square)
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="256" height="256"><rect width="256" height="256" rx="48" fill="#1a73e8"/><circle cx="128" cy="128" r="70" fill="#fbbc04"/></svg>`;
  return sharp(Buffer.from(svg)).png().toBuffer();
}

function post(
  port: number,
  agent: Agent,
  path: string,
  key: string,
  body: unknown,
): Promise<{ status: number; body: { id: number; link: string } & Record<string, unknown> }> {
  const data = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        path,
        method: 'POST',
        agent,
        headers: {
          Authorization: `Bearer ${key}`,
          'Content-Type': 'application/json',
          'Content-Length': Buffer.byteLength(data),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            body: JSON.parse(Buffer.concat(chunks).toString() || 'null'),
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}

/** CPU time (ms) of a process so far, from /proc (the harness's reader), or null when unreadable. */
async function processCpuMs(pid: number | undefined): Promise<number | null> {
  if (!pid) return null;
  try {
    return processCpuUs(pid) / 1000;
  } catch {
    return null;
  }
}

async function main(): Promise<void> {
  const storage = await mkdtemp(join(process.env.QR_BENCH_STORAGE || tmpdir(), 'qr-bench-'));
  const env = runEnvironment('qb', storage, {
    STATS_FOLD_SECONDS: '60',
    QR_CONCURRENCY: String(CONCURRENCY),
  });

  // Imported after the environment is set: the config is read when the modules load.
  const { runMigrations } = await import('../libs/database/src/data-source');
  const { QUEUE } = await import('../libs/queue/src/queues');
  const { JOBS_PER_RENDER_SLOT } = await import('../apps/worker/src/qr/qr.processor');
  const { loadConfig } = await import('../libs/config/src/app-config');

  let worker: ChildProcess | undefined;
  let api: ChildProcess | undefined;
  const closers: Array<() => Promise<unknown>> = [];
  try {
    await runMigrations(env.DATABASE_URL);
    const logo = await makeLogo();
    await mkdir(join(storage, 'assets'), { recursive: true });
    await writeFile(join(storage, 'assets', 'logo.png'), logo);

    const port = await freePort();
    const apiKey = `benchadminkey${RUN}`.padEnd(40, 'k');
    api = await startBuilt(
      'api',
      {
        ...env,
        PORT: String(port),
        ADMIN_EMAIL: `bench${RUN}@example.com`,
        ADMIN_API_KEY: apiKey,
        LOG_LEVEL: 'warn',
      },
      'api listening',
    );
    // BENCH_PROFILE=<dir>: the worker's CPU profile (`node --cpu-prof`), written when it stops
    worker = await startBuilt(
      'worker',
      env,
      'worker started',
      process.env.BENCH_PROFILE ? ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_PROFILE] : [],
    );
    // Ready times come from the rows (updated_at when the worker marks them ready), read on a
    // connection of the bench's own: nothing but the api's own work runs on the api's event loop.
    const watcher = new Pool({ connectionString: env.DATABASE_URL, max: 1 });
    closers.push(() => watcher.end());
    const readyAt = new Map<number, number>();
    // Only the rows still awaited are read: the watcher's query stays small as codes get ready.
    const poll = async (ids: number[]) => {
      const { rows } = await watcher.query(
        `SELECT id, status, error, (extract(epoch FROM updated_at) * 1000)::float8 AS at FROM qr_codes WHERE id = ANY($1) AND status <> 'pending'`,
        [ids.filter((id) => !readyAt.has(id))],
      );
      for (const row of rows) {
        if (row.status === 'failed') throw new Error(`qr ${row.id} failed: ${row.error}`);
        readyAt.set(row.id, row.at);
      }
    };
    const waitReady = async (ids: number[]) => {
      const deadline = Date.now() + 10 * 60_000;
      for (;;) {
        await poll(ids);
        if (ids.every((id) => readyAt.has(id))) return;
        if (Date.now() > deadline) throw new Error('renders did not finish within 10 minutes');
        await new Promise((r) => setTimeout(r, 200));
      }
    };

    // warm-up: the api's first requests and the worker's first renders (not counted)
    const agent = new Agent({ keepAlive: true, maxSockets: CLIENTS });
    const warm: number[] = [];
    for (let i = 0; i < 4; i++) {
      const r = await post(port, agent, '/api/qr/add', apiKey, {
        type: 'link',
        data: 'https://example.com/warmup',
        logo: 'logo.png',
      });
      if (r.status !== 200)
        throw new Error(`warm-up qr/add answered ${r.status}: ${JSON.stringify(r.body)}`);
      warm.push(r.body.id);
    }
    await waitReady(warm);

    const links = new Map<number, string>();
    const sentAt = new Map<number, number>();
    const addOne = async (i: number, label: string): Promise<{ id: number; latency: number }> => {
      const wall = Date.now();
      const t0 = performance.now();
      const res = await post(port, agent, '/api/qr/add', apiKey, {
        type: 'link',
        data: `https://example.com/${label}/${i}`,
        logo: 'logo.png',
        name: `${label} ${i}`,
      });
      const latency = performance.now() - t0;
      if (res.status !== 200)
        throw new Error(`qr/add answered ${res.status}: ${JSON.stringify(res.body)}`);
      sentAt.set(res.body.id, wall);
      links.set(res.body.id, res.body.link);
      return { id: res.body.id, latency };
    };

    // 1. Throughput: COUNT codes are added (from CLIENTS clients) while the queue is paused, then
    //    the worker drains them; meanwhile one client keeps adding: qr/add while the worker is busy.
    const queue = new Queue(QUEUE.qr, {
      connection: new Redis(env.REDIS_URL, { maxRetriesPerRequest: null }),
      prefix: `${env.REDIS_PREFIX}:bull`,
    });
    closers.push(() => queue.close());
    await queue.pause();
    // reference: qr/add from one client while the worker is idle
    const idleAdds: number[] = [];
    const idle: number[] = [];
    for (let i = 0; i < 50; i++) {
      const { id, latency } = await addOne(i, 'idle');
      idle.push(id);
      idleAdds.push(latency);
      await new Promise((r) => setTimeout(r, PROBE_GAP));
    }
    // the reference codes render before the rounds (not counted)
    await queue.resume();
    await waitReady(idle);

    // Rounds: the worker drains COUNT codes, then the baseline renders the same payloads; the
    // ratio is each round's own, and the figures are medians over the rounds, so a machine that
    // drifts during the run moves both sides of a ratio.
    const rounds: Array<{ worker: Drain; baseline: BaselineResult }> = [];
    let next = 0;
    for (let round = 0; round < ROUNDS; round++) {
      await queue.pause();
      const burst: number[] = [];
      next = 0;
      await Promise.all(
        Array.from({ length: CLIENTS }, async () => {
          while (next < COUNT) burst.push((await addOne(next++, `burst${round}`)).id);
        }),
      );
      const workerCpu0 = await processCpuMs(worker.pid);
      const resumedAt = Date.now();
      await queue.resume();
      await waitReady(burst);
      const drained = Math.max(...burst.map((id) => readyAt.get(id) as number));
      const workerCpu1 = await processCpuMs(worker.pid);
      const drain: Drain = {
        images: burst.length,
        seconds: (drained - resumedAt) / 1000,
        cpuPerImage:
          workerCpu0 !== null && workerCpu1 !== null
            ? (workerCpu1 - workerCpu0) / burst.length
            : null,
      };
      const base = await runQrBaseline({
        links: burst.map((id) => links.get(id) as string),
        logo: logo.toString('base64'),
        nice: loadConfig().WORKER_NICE,
        concurrency: CONCURRENCY,
      });
      rounds.push({ worker: drain, baseline: base });
      console.log(
        `  round ${round + 1}: worker ${(drain.images / drain.seconds).toFixed(1)} images/s, ${drain.cpuPerImage?.toFixed(2)} ms CPU/image; baseline ${(COUNT / base.seconds).toFixed(1)} images/s, ${base.cpuPerImage.toFixed(2)} ms; ratio ${(drain.seconds > 0 ? base.seconds / drain.seconds : 0).toFixed(2)}`,
      );
    }

    // 1 bis. Each round's figures, then medians: the ratios are the median of the rounds' own.
    const workerRates = rounds.map((r) => r.worker.images / r.worker.seconds);
    const baseRates = rounds.map((r) => COUNT / r.baseline.seconds);
    const workerCpus = rounds.map((r) => r.worker.cpuPerImage);
    const known = (values: Array<number | null>) => values.filter((v): v is number => v !== null);
    const roundRatios = rounds.map((r) => r.baseline.seconds / r.worker.seconds);
    const cpuRatios = rounds.flatMap((r) =>
      r.worker.cpuPerImage === null ? [] : [r.baseline.cpuPerImage / r.worker.cpuPerImage],
    );
    const workerRate = median(workerRates);
    const ratio = median(roundRatios);
    const workerCpu = known(workerCpus);
    const round2 = (n: number) => Number(n.toFixed(2));

    // 2b. qr/add while the worker is busy: a second backlog (BUSY_BACKLOG codes) is drained while
    //     one client adds a code every PROBE_GAP ms until a fifth of it is left (the backlog is
    //     counted every 250 ms), so every probe meets a busy worker.
    await queue.pause();
    const backlog: number[] = [];
    next = 0;
    await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        while (next < BUSY_BACKLOG) backlog.push((await addOne(next++, 'backlog')).id);
      }),
    );
    await queue.resume();
    const busyAdds: number[] = [];
    const probes: number[] = [];
    let left = backlog.length;
    const counter = setInterval(() => {
      poll(backlog).then(
        () => (left = backlog.filter((id) => !readyAt.has(id)).length),
        () => undefined,
      );
    }, 250);
    while (left > BUSY_BACKLOG / 5) {
      const { id, latency } = await addOne(probes.length, 'probe');
      probes.push(id);
      busyAdds.push(latency);
      await new Promise((r) => setTimeout(r, PROBE_GAP));
    }
    clearInterval(counter);
    await waitReady([...backlog, ...probes]);

    // 3. Latency: codes added one at a time at half the measured throughput; add → ready.
    const paced: number[] = [];
    const gap = 1000 / (workerRate / 2);
    const pacedCount = Math.min(100, COUNT);
    const pacedRuns: Promise<void>[] = [];
    for (let i = 0; i < pacedCount; i++) {
      pacedRuns.push(addOne(i, 'paced').then(({ id }) => void paced.push(id)));
      await new Promise((r) => setTimeout(r, gap));
    }
    await Promise.all(pacedRuns);
    await waitReady(paced);
    const toReady = paced.map((id) => (readyAt.get(id) as number) - (sentAt.get(id) as number));

    // 5. Every image decodes back to its short link
    const db = new DataSource({ type: 'postgres', url: env.DATABASE_URL });
    await db.initialize();
    closers.push(() => db.destroy());
    const rows: Array<{ id: number; code: string; status: string }> = await db.query(
      `SELECT q.id, l.alias AS code, q.status FROM qr_codes q JOIN links l ON l.id = q.link_id WHERE q.id = ANY($1)`,
      [[...sentAt.keys()]],
    );
    let decoded = 0;
    const mismatches: string[] = [];
    for (const row of rows) {
      const { text } = await decodeQr(await readFile(join(storage, 'qr', `${row.code}.png`)));
      if (row.status === 'ready' && text === `${PUBLIC_URL}/q/${row.code}`) decoded += 1;
      else mismatches.push(`${row.id}: ${row.status} ${text}`);
    }

    const total = sentAt.size;
    const result = {
      machine: {
        cpus: cpus().length,
        model: cpus()[0]?.model,
        node: process.version,
        loadavg: loadavg().map((n) => Number(n.toFixed(2))),
      },
      settings: {
        images: total,
        burst: COUNT,
        clients: CLIENTS,
        renderSlots: CONCURRENCY,
        jobsInFlight: CONCURRENCY * JOBS_PER_RENDER_SLOT,
        size: 512,
        logo: true,
        nice: loadConfig().WORKER_NICE,
        storage: process.env.QR_BENCH_STORAGE || tmpdir(),
        libvips: 'cache off, one thread per pipeline (worker and baseline)',
      },
      rounds: rounds.map((r, i) => ({
        worker: {
          imagesPerSecond: Number(workerRates[i].toFixed(1)),
          seconds: round2(r.worker.seconds),
          cpuMsPerImage: r.worker.cpuPerImage === null ? null : round2(r.worker.cpuPerImage),
        },
        baseline: {
          imagesPerSecond: Number(baseRates[i].toFixed(1)),
          seconds: round2(r.baseline.seconds),
          cpuMsPerImage: round2(r.baseline.cpuPerImage),
          perImageMs: {
            p50: Number(pct(r.baseline.perImage, 50).toFixed(1)),
            p99: Number(pct(r.baseline.perImage, 99).toFixed(1)),
          },
        },
        ratio: round2(roundRatios[i]),
      })),
      // medians over the rounds; the ratios are the medians of the rounds' own ratios
      pipeline: {
        imagesPerSecond: Number(workerRate.toFixed(1)),
        imagesPerRound: COUNT,
        workerCpuMsPerImage: workerCpu.length ? round2(median(workerCpu)) : null,
      },
      baseline: {
        imagesPerSecond: Number(median(baseRates).toFixed(1)),
        cpuMsPerImage: round2(median(rounds.map((r) => r.baseline.cpuPerImage))),
      },
      ratio: round2(ratio),
      // CPU per image, baseline over worker: steadier than the rates on a machine shared with other work
      cpuRatio: cpuRatios.length ? round2(median(cpuRatios)) : null,
      addToReadyMs: {
        codes: paced.length,
        arrivalsPerSecond: Number((1000 / gap).toFixed(1)),
        p50: Number(pct(toReady, 50).toFixed(1)),
        p99: Number(pct(toReady, 99).toFixed(1)),
      },
      qrAddWhileWorkerIdleMs: {
        requests: idleAdds.length,
        p50: Number(pct(idleAdds, 50).toFixed(1)),
        p99: Number(pct(idleAdds, 99).toFixed(1)),
      },
      qrAddWhileWorkerBusyMs: {
        requests: busyAdds.length,
        p50: Number(pct(busyAdds, 50).toFixed(1)),
        p99: Number(pct(busyAdds, 99).toFixed(1)),
        max: Number(Math.max(...busyAdds).toFixed(1)),
      },
      decode: { checked: rows.length, ok: decoded, mismatches: mismatches.slice(0, 5) },
      targets: {
        ratioAtLeast08: ratio >= 0.8,
        qrAddP99Under20ms: pct(busyAdds, 99) < 20,
        everyImageDecodes: decoded === total,
      },
    };

    console.log(
      `\nQR benchmark: 512 px codes with a logo, ${CONCURRENCY} renders in flight (worker and baseline; ${CONCURRENCY * JOBS_PER_RENDER_SLOT} jobs), ${result.machine.cpus} CPUs (load ${result.machine.loadavg.join(' ')}), ${ROUNDS} rounds of ${COUNT} images, medians`,
    );
    console.log(
      `  worker pipeline   ${result.pipeline.imagesPerSecond} images/s (queue → render → files in ${result.settings.storage} → row ready), worker CPU ${result.pipeline.workerCpuMsPerImage} ms/image`,
    );
    console.log(
      `  bare baseline     ${result.baseline.imagesPerSecond} images/s (the round's payloads, qrcode SVG + sharp only, nice ${result.settings.nice} like the worker), CPU ${result.baseline.cpuMsPerImage} ms/image`,
    );
    console.log(
      `  ratio             ${result.ratio} (rounds ${roundRatios.map((r) => r.toFixed(2)).join(', ')}; target ≥ 0.8); CPU per image, baseline / worker: ${result.cpuRatio}`,
    );
    console.log(
      `  add → ready       p50 ${ms(result.addToReadyMs.p50)}  p99 ${ms(result.addToReadyMs.p99)} (${paced.length} codes at ${result.addToReadyMs.arrivalsPerSecond}/s)`,
    );
    console.log(
      `  qr/add, busy      p50 ${ms(result.qrAddWhileWorkerBusyMs.p50)}  p99 ${ms(result.qrAddWhileWorkerBusyMs.p99)}  max ${ms(result.qrAddWhileWorkerBusyMs.max)} (${busyAdds.length} requests; target p99 < 20 ms)`,
    );
    console.log(
      `  qr/add, idle      p50 ${ms(result.qrAddWhileWorkerIdleMs.p50)}  p99 ${ms(result.qrAddWhileWorkerIdleMs.p99)} (${idleAdds.length} requests, same pacing, worker idle)`,
    );
    console.log(`  decode            ${decoded}/${total} images decode to their short link`);
    await mkdir(join(__dirname, '..', 'bench-results'), { recursive: true });
    await writeFile(
      join(__dirname, '..', 'bench-results', 'qr.json'),
      `${JSON.stringify(result, null, 2)}\n`,
    );
    if (decoded !== total) process.exitCode = 1;
  } finally {
    for (const close of closers.reverse()) await close().catch(() => undefined);
    if (worker) await stop(worker);
    if (api) await stop(api);
    await removeRun(env);
  }
}

runBench(main);
