import 'reflect-metadata';

import { loadConfig } from '@app/config';

import { createWorker } from './bootstrap';

async function main(): Promise<void> {
  loadConfig();
  const app = await createWorker();
  // SIGTERM / SIGINT: Nest closes the BullMQ workers, which let running jobs finish first.
  app.enableShutdownHooks(['SIGTERM', 'SIGINT']);
  await app.init();
  console.log(JSON.stringify({ level: 30, msg: 'worker started' }));
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
