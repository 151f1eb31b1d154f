import 'reflect-metadata';

import { Server } from 'node:http';

import { loadConfig } from '@app/config';
import { runMigrations } from '@app/database';

import { ApiApp, createApi } from './bootstrap';
import { postgresReachable, StartingFront } from './starting/starting-front';
import { LiveStreams } from './stats/live-streams';
import { adminKey } from './users/admin-key.command';

async function migrate(): Promise<void> {
  const config = loadConfig();
  const applied = await runMigrations(config.DATABASE_URL);
  console.log(
    applied.length ? `applied migrations: ${applied.join(', ')}` : 'database is up to date',
  );
}

/** Listens on PORT, with a plain answer for the usual reasons it cannot. */
async function listen(server: Server, port: number): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, () => {
      server.off('error', reject);
      resolve();
    });
  }).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'EADDRINUSE')
      throw new Error(
        `PORT ${port} is in use: another process listens on it (stop it, or set PORT to a free port)`,
      );
    if (err.code === 'EACCES')
      throw new Error(`PORT ${port} may not be opened by this user: set PORT above 1023`);
    throw err;
  });
}

/**
 * Serves. With Postgres reachable: builds the api, then listens. Without: listens at once with
 * the starting front (short links from the link snapshot, the API 503) and builds the api on
 * the same server once Postgres is back (docs/link-permanence.md).
 */
async function serve(): Promise<void> {
  const config = loadConfig();
  const log = (msg: string) => console.log(JSON.stringify({ level: 30, msg }));
  let starting: StartingFront | null = null;
  let api: ApiApp | null = null;
  let server: Server;
  if (await postgresReachable(config)) {
    api = await createApi();
    server = api.server;
    await listen(server, config.PORT).catch(async (err) => {
      await api?.app.close().catch(() => undefined);
      throw err;
    });
  } else {
    starting = await StartingFront.create();
    server = starting.server;
    await listen(server, config.PORT).catch(async (err) => {
      await starting?.stop();
      throw err;
    });
    log(
      `api listening on ${config.PORT} (starting: Postgres unreachable, short links from the link snapshot)`,
    );
  }

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    log(`${signal}: finishing in-flight requests`);
    // live streams never finish by themselves: ended now (their clients reconnect elsewhere)
    (api ?? starting?.built)?.app.get(LiveStreams).closeAll();
    server.close();
    server.closeIdleConnections();
    const force = setTimeout(() => server.closeAllConnections(), 10_000);
    await new Promise((resolve) => server.once('close', resolve));
    clearTimeout(force);
    await starting?.stop();
    await (api ?? starting?.built)?.app.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));

  if (starting) {
    api = await starting.build().catch((err: Error) => {
      if (closing) return null;
      throw err;
    });
    if (!api) return;
  }
  log(`api listening on ${config.PORT}`);
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
