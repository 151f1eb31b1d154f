import 'reflect-metadata';

import { loadConfig } from '@app/config';

import { createWorker } from './bootstrap';
import { lowerPriority } from './priority';

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

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
