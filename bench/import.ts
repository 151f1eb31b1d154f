/**
 * Import benchmark: `npm run bench:import` (IMPORT_BENCH_ROWS, default 100 000).
 *
 * Runs the built api and worker (dist; the script builds first) as processes of their own, on a
 * database, Redis prefix and storage folder of their own (dropped at the end; the worker runs the
 * import job), and imports a CSV file of
 * ROWS links (url, alias, title; every row valid) with the admin's key:
 * 1. first run: every row created (rows/s from the POST to status done);
 * 2. the same file again: every row skipped (nothing new is created).
 * The worker's peak resident memory is sampled from /proc during each run. Results go to stdout
 * and bench-results/import.json. BENCH_PROFILE=<dir> writes the worker's CPU profile there.
 */
import 'reflect-metadata';

import { ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { stop } from './lib/harness';
import { freePort, removeRun, rssMb, RUN, runBench, runEnvironment, startBuilt } from './lib/run';

const ROWS = Number(process.env.IMPORT_BENCH_ROWS ?? 100_000);

const rssMbRounded = async (pid: number) => Math.round(await rssMb(pid));

interface ImportData {
  status: string;
  total: number;
  created: number;
  skipped: number;
  failed: number;
}

async function runImport(
  base: string,
  key: string,
  csv: string,
  pid: number,
): Promise<{ seconds: number; data: ImportData; rssBefore: number; rssPeak: number }> {
  const rssBefore = await rssMbRounded(pid);
  let rssPeak = rssBefore;
  const started = Date.now();
  const res = await fetch(`${base}/api/import`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'text/csv' },
    body: csv,
  });
  const { id } = (await res.json()) as { id: number };
  if (!id) throw new Error(`import not started: HTTP ${res.status}`);
  for (;;) {
    await new Promise((r) => setTimeout(r, 100));
    rssPeak = Math.max(rssPeak, await rssMbRounded(pid));
    const poll = await fetch(`${base}/api/import/${id}`, {
      headers: { Authorization: `Bearer ${key}` },
    });
    const { data } = (await poll.json()) as { data: ImportData };
    if (data.status === 'done' || data.status === 'failed')
      return { seconds: (Date.now() - started) / 1000, data, rssBefore, rssPeak };
  }
}

async function main(): Promise<void> {
  const storage = await mkdtemp(join(tmpdir(), 'import-bench-'));
  const env = runEnvironment('ib', storage);
  const { runMigrations } = await import('../libs/database/src/data-source');
  let api: ChildProcess | undefined;
  let worker: ChildProcess | undefined;
  try {
    await runMigrations(env.DATABASE_URL);
    const port = await freePort();
    const key = `benchadminkey${RUN}`.padEnd(40, 'k');
    api = await startBuilt(
      'api',
      { ...env, PORT: String(port), ADMIN_EMAIL: `bench${RUN}@example.com`, ADMIN_API_KEY: key },
      'api listening',
    );
    // the worker runs the import job; BENCH_PROFILE=<dir>: its CPU profile, written when it stops
    worker = await startBuilt(
      'worker',
      env,
      'worker started',
      process.env.BENCH_PROFILE ? ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_PROFILE] : [],
    );
    const base = `http://127.0.0.1:${port}`;
    const lines = ['url,alias,title'];
    for (let i = 0; i < ROWS; i++)
      lines.push(`https://bench.example/page/${i}?ref=import,bench${RUN.slice(-6)}${i},Page ${i}`);
    const csv = lines.join('\n');
    console.log(`import bench: ${ROWS} rows, ${(csv.length / 1024 / 1024).toFixed(1)} MB of CSV`);

    const first = await runImport(base, key, csv, worker.pid as number);
    const again = await runImport(base, key, csv, worker.pid as number);
    const summary = (r: typeof first) => ({
      ...r.data,
      seconds: Number(r.seconds.toFixed(2)),
      rowsPerSecond: Math.round(ROWS / r.seconds),
      rssBeforeMb: r.rssBefore,
      rssPeakMb: r.rssPeak,
    });
    const report = {
      rows: ROWS,
      first: summary(first),
      again: summary(again),
      goal: '>= 2000 rows/s',
    };
    console.log(
      `first run:  ${report.first.created} created in ${report.first.seconds} s = ${report.first.rowsPerSecond} rows/s (worker RSS ${first.rssBefore} → peak ${first.rssPeak} MB)`,
    );
    console.log(
      `same file:  ${report.again.skipped} skipped, ${report.again.created} created in ${report.again.seconds} s = ${report.again.rowsPerSecond} rows/s (worker RSS peak ${again.rssPeak} MB)`,
    );
    await mkdir(join(__dirname, '..', 'bench-results'), { recursive: true });
    await writeFile(
      join(__dirname, '..', 'bench-results', 'import.json'),
      JSON.stringify(report, null, 2),
    );
  } finally {
    if (worker) await stop(worker);
    if (api) await stop(api);
    await removeRun(env);
  }
}

runBench(main);
