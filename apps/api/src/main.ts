import 'reflect-metadata';

import { loadConfig } from '@app/config';
import { runMigrations } from '@app/database';

import { createApi } from './bootstrap';

async function migrate(): Promise<void> {
  const config = loadConfig();
  const applied = await runMigrations(config.DATABASE_URL);
  console.log(
    applied.length ? `applied migrations: ${applied.join(', ')}` : 'database is up to date',
  );
}

async function serve(): Promise<void> {
  const config = loadConfig();
  const { app, server } = await createApi();
  server.listen(config.PORT, () =>
    console.log(JSON.stringify({ level: 30, msg: `api listening on ${config.PORT}` })),
  );

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    console.log(JSON.stringify({ level: 30, msg: `${signal}: finishing in-flight requests` }));
    server.close();
    server.closeIdleConnections();
    const force = setTimeout(() => server.closeAllConnections(), 10_000);
    await new Promise((resolve) => server.once('close', resolve));
    clearTimeout(force);
    await app.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

const run = process.argv[2] === 'migrate' ? migrate : serve;
run().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
