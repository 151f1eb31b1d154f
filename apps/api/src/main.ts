import 'reflect-metadata';

import { loadConfig } from '@app/config';
import { runMigrations } from '@app/database';

import { createApi } from './bootstrap';
import { LiveStreams } from './stats/live-streams';
import { adminKey } from './users/admin-key.command';

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
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.PORT, () => {
      server.off('error', reject);
      resolve();
    });
  }).catch(async (err: NodeJS.ErrnoException) => {
    await app.close().catch(() => undefined);
    if (err.code === 'EADDRINUSE')
      throw new Error(
        `PORT ${config.PORT} is in use: another process listens on it (stop it, or set PORT to a free port)`,
      );
    if (err.code === 'EACCES')
      throw new Error(`PORT ${config.PORT} may not be opened by this user: set PORT above 1023`);
    throw err;
  });
  console.log(JSON.stringify({ level: 30, msg: `api listening on ${config.PORT}` }));

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    console.log(JSON.stringify({ level: 30, msg: `${signal}: finishing in-flight requests` }));
    // live streams never finish by themselves: ended now (their clients reconnect elsewhere)
    app.get(LiveStreams).closeAll();
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

/** `node main.js [migrate | admin-key ...]`: serves when no command is given. */
const COMMANDS: Record<string, (args: string[]) => Promise<void>> = {
  migrate,
  'admin-key': adminKey,
};
const [command, ...args] = process.argv.slice(2);
const run =
  command === undefined ? serve : Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : null;
if (!run) {
  console.error(`unknown command ${command}: use migrate or admin-key (none: serve)`);
  process.exit(1);
}
run(args).then(
  // a command is done: its connections (Redis subscribers, queues) must not keep the process up
  () => command !== undefined && process.exit(0),
  (err) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  },
);
