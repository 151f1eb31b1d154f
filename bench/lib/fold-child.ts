/**
 * A worker that folds on demand, in a process of its own, for a benchmark that measures the fold
 * beside an api it started with another environment (bench:scale: one database and Redis prefix
 * per scale). The process is the production worker module (`createWorker`), its own fold
 * schedule out of the way (STATS_FOLD_SECONDS an hour); it prints `ready`, then answers each
 * `fold` line on its stdin with one JSON line (`FoldRun`): what it folded until nothing was left,
 * its CPU time and the wall time. `startFoldChild` starts one pinned to a core, `foldChildRun`
 * asks it.
 */
import 'reflect-metadata';

import { ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

import { readyLine, spawnPinned } from './harness';

/** One fold until nothing is left, as the child reports it. */
export interface FoldRun {
  /** visits folded */
  clicks: number;
  /** links folded (a link-day each, in the benchmarks) */
  links: number;
  /** the worker process's CPU time during the fold (user and system), µs */
  cpuUs: number;
  seconds: number;
}

/** Starts a fold child pinned to `core` with `env` (the api's environment of the same data). */
export async function startFoldChild(core: number, env: NodeJS.ProcessEnv): Promise<ChildProcess> {
  const child = spawnPinned(
    core,
    process.execPath,
    ['-r', 'ts-node/register/transpile-only', '-r', 'tsconfig-paths/register', __filename],
    {
      env: { ...process.env, NODE_ENV: 'production', ...env, STATS_FOLD_SECONDS: '3600' },
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
  await readyLine(child, /^ready$/m, 'fold child', 120_000).catch((err) => {
    child.kill('SIGKILL');
    throw err;
  });
  return child;
}

/** Asks a fold child to fold everything pending; answers what it reported. */
export async function foldChildRun(child: ChildProcess): Promise<FoldRun> {
  const answer = readyLine(child, /^\{.*\}$/m, 'fold child', 600_000);
  child.stdin?.write('fold\n');
  return JSON.parse((await answer)[0]) as FoldRun;
}

async function main(): Promise<void> {
  // the apps' modules read their config when they load: imported once the environment is set
  const { createWorker } = await import('../../apps/worker/src/bootstrap');
  const { StatsFold } = await import('../../libs/stats/src/fold/stats-fold');
  const worker = await createWorker({ logger: false });
  await worker.init();
  const fold = worker.get(StatsFold);
  process.stdout.write('ready\n');
  for await (const line of createInterface({ input: process.stdin })) {
    if (line !== 'fold') break;
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const run: FoldRun = { clicks: 0, links: 0, cpuUs: 0, seconds: 0 };
    for (;;) {
      const r = await fold.fold();
      run.clicks += r.clicks;
      run.links += r.links;
      if (!r.links) break;
    }
    const cpu = process.cpuUsage(cpu0);
    run.cpuUs = cpu.user + cpu.system;
    run.seconds = (performance.now() - t0) / 1000;
    process.stdout.write(`${JSON.stringify(run)}\n`);
  }
  await worker.close();
}

if (require.main === module)
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
