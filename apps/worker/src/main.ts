import 'reflect-metadata';

import { existsSync, readdirSync } from 'node:fs';
import { setPriority } from 'node:os';

import { loadConfig } from '@app/config';

import { createWorker } from './bootstrap';

async function main(): Promise<void> {
  const config = loadConfig();
  lowerPriority(config.WORKER_NICE);
  const app = await createWorker();
  await app.init();
  console.log(JSON.stringify({ level: 30, msg: 'worker started' }));

  // SIGTERM / SIGINT: closing the app closes the BullMQ workers, which stop taking jobs and let
  // the running ones finish; then exit 0 (Nest's own hooks would re-raise the signal instead).
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    console.log(JSON.stringify({ level: 30, msg: `${signal}: finishing running jobs` }));
    await app.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

/**
 * WORKER_NICE for every thread: this one (threads started from now on inherit it) and those
 * already running (Linux: each thread has its own niceness; modules such as sharp start theirs
 * when they load).
 */
function lowerPriority(nice: number): void {
  try {
    setPriority(nice);
    for (const tid of existsSync('/proc/self/task') ? readdirSync('/proc/self/task') : []) {
      try {
        setPriority(Number(tid), nice);
      } catch {
        // the thread ended meanwhile
      }
    }
  } catch (err) {
    console.log(
      JSON.stringify({ level: 40, msg: `WORKER_NICE not applied: ${(err as Error).message}` }),
    );
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
