/**
 * Kutt 3.2.3 (github.com/thedevs-network/kutt, tag v3.2.3) run beside the api by bench/create.ts
 * (CREATE_KUTT_DIR: its source with its production dependencies, `npm ci --omit=dev`), as an
 * operator runs it on Postgres and Redis: a database of the run's own migrated by Kutt's own
 * `knex migrate:latest`, Redis on (its users' cache), pinned to the api's core, one verified user
 * with an API key written into its `users` table (what `POST /api/v2/auth/apikey` stores).
 *
 * Its create path (`POST /api/v2/links`) resolves the target's host (`dns.lookup`, to look the
 * address up in its banned hosts). Offline that lookup waits on the resolver (8 links/s on the
 * machine this was written on), so Kutt's targets name an address (`https://93.184.215.14/…`,
 * public: its URL check refuses private ones): Node answers such a lookup at once, and the
 * banned-hosts query still runs, as it does online for a host that resolves.
 */
import { ChildProcess, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';

import Redis from 'ioredis';
import { DataSource } from 'typeorm';

import { dropDatabase, ensureDatabase } from '../../libs/database/src/data-source';
import { deleteKeys, scanKeys } from '../../test/support/redis';
import { readyLine, SERVER_CORE, spawnPinned, stop, waitHealthy, WrkRequest } from './harness';

/** Kutt's Redis database: its keys (`u:<key>`, `l:…`, `h:…`, `bull:…`) have no prefix of ours. */
const REDIS_DB = 11;
/** The key patterns Kutt writes (server/redis.js, and bull's queue). */
const REDIS_PATTERNS = ['u:*', 'l:*', 'd:*', 'h:*', 's:*', 'bull:*'];
/**
 * Kutt's domain (DEFAULT_DOMAIN), the Host of its requests as of a deployed Kutt's clients: with
 * another Host every `/api/…` request first looks that host up as a custom domain (a Redis GET
 * and a Postgres query that find nothing).
 */
const DOMAIN = 'kutt.test';
/** Kutt's targets: a public address, so that no creation waits on DNS (see the file's comment). */
export const KUTT_TARGET = 'https://93.184.215.14/kutt/';

export interface Kutt {
  child: ChildProcess;
  url: string;
  /** Its user's API key (`X-API-KEY`). */
  key: string;
  database: string;
  /** Its settings (the Redis it uses). */
  redis: NodeJS.ProcessEnv;
}

/** Kutt's settings (server/env.js): Postgres and Redis from ours, everything else its defaults. */
function kuttEnv(port: number, database: string, redisUrl: string): NodeJS.ProcessEnv {
  const redis = new URL(redisUrl);
  const db = new URL(database);
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    PORT: String(port),
    DEFAULT_DOMAIN: DOMAIN,
    DB_CLIENT: 'pg',
    DB_HOST: db.hostname,
    DB_PORT: db.port || '5432',
    DB_NAME: db.pathname.slice(1),
    DB_USER: decodeURIComponent(db.username),
    DB_PASSWORD: decodeURIComponent(db.password),
    REDIS_ENABLED: 'true',
    REDIS_HOST: redis.hostname,
    REDIS_PORT: redis.port || '6379',
    REDIS_DB: String(REDIS_DB),
    JWT_SECRET: 'create-bench-kutt-secret',
  };
}

/**
 * Migrates a database of Kutt's own (`kutt_create_<run>`), adds its user and starts Kutt from
 * `dir` pinned to the server core; resolves once it answers its health check.
 */
export async function startKutt(
  dir: string,
  run: string,
  port: number,
  redisUrl: string,
): Promise<Kutt> {
  const database = `postgres://postgres@127.0.0.1:5432/kutt_create_${run}`;
  const env = kuttEnv(port, database, redisUrl);
  // the row `POST /api/v2/auth/apikey` leaves: a verified user with a 40-character key
  const key = randomBytes(20).toString('hex');
  await ensureDatabase(database);
  let child: ChildProcess | undefined;
  try {
    // `npm run migrate`, as its Docker image does before `npm start`
    execFileSync(
      process.execPath,
      [join(dir, 'node_modules', 'knex', 'bin', 'cli.js'), 'migrate:latest'],
      {
        cwd: dir,
        env,
        stdio: ['ignore', 'ignore', 'inherit'],
      },
    );
    const db = new DataSource({ type: 'postgres', url: database });
    await db.initialize();
    try {
      await db.query(
        `INSERT INTO users (email, password, apikey, verified) VALUES ($1, '!', $2, true)`,
        [`create${run}@example.com`, key],
      );
    } finally {
      await db.destroy();
    }
    // `npm start`
    child = spawnPinned(
      SERVER_CORE,
      process.execPath,
      [join(dir, 'server', 'server.js'), '--production'],
      { cwd: dir, env, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const url = `http://127.0.0.1:${port}`;
    await readyLine(child, /Ready on/, 'kutt', 60_000);
    await waitHealthy(`${url}/api/v2`, 60_000, child);
    return { child, url, key, database, redis: env };
  } catch (err) {
    await removeKutt({ child, database, redis: env });
    throw err;
  }
}

/** `count` creations through Kutt's API, numbered from `from`. */
export function kuttCreations(key: string, from: number, count: number): WrkRequest[] {
  return Array.from({ length: count }, (_, i) => ({
    method: 'POST',
    path: '/api/v2/links',
    headers: { Host: DOMAIN, 'X-API-KEY': key, Accept: 'application/json' },
    body: JSON.stringify({ target: `${KUTT_TARGET}${from + i}?ref=bench` }),
  }));
}

/** The links of the bench in Kutt's database. */
export async function kuttLinks(kutt: Kutt): Promise<number> {
  const db = new DataSource({ type: 'postgres', url: kutt.database });
  await db.initialize();
  try {
    const [{ n }] = await db.query(`SELECT count(*)::int AS n FROM links WHERE target LIKE $1`, [
      `${KUTT_TARGET}%`,
    ]);
    return n as number;
  } finally {
    await db.destroy();
  }
}

/** Stops Kutt, drops its database and deletes its Redis keys. */
export async function removeKutt(
  kutt: Pick<Kutt, 'database' | 'redis'> & { child?: ChildProcess },
): Promise<void> {
  if (kutt.child) await stop(kutt.child);
  await dropDatabase(kutt.database);
  const { REDIS_HOST, REDIS_PORT } = kutt.redis;
  const redis = new Redis({ host: REDIS_HOST, port: Number(REDIS_PORT), db: REDIS_DB });
  try {
    for (const pattern of REDIS_PATTERNS) await deleteKeys(redis, await scanKeys(redis, pattern));
  } finally {
    await redis.quit();
  }
}
