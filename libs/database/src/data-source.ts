import { DataSource, DataSourceOptions } from 'typeorm';

import * as entities from './entities';
import { MIGRATIONS } from './migrations';

export const ENTITIES = Object.values(entities).filter((e) => typeof e === 'function');

/** One options object feeds Nest (DatabaseModule) and the migration runner (`main.js migrate`). */
export function dataSourceOptions(url: string, poolSize = 10): DataSourceOptions {
  return {
    type: 'postgres',
    url,
    entities: ENTITIES as DataSourceOptions['entities'],
    migrations: MIGRATIONS,
    migrationsTableName: 'migrations',
    synchronize: false,
    extra: { max: poolSize, connectionTimeoutMillis: 5000 },
  };
}

/** Creates the database named in the URL if it does not exist (connecting to `postgres`). */
export async function ensureDatabase(url: string): Promise<void> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.replace(/^\//, ''));
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const ds = new DataSource({ type: 'postgres', url: admin.toString() });
  await ds.initialize();
  try {
    const rows = await ds.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    // another process may create it meanwhile: it then exists, as wanted (42P04 once theirs
    // committed, 23505 on the catalog's unique index while both were creating it)
    if (!rows.length)
      await ds
        .query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`)
        .catch((err: { driverError?: { code?: string } }) => {
          if (!['42P04', '23505'].includes(err.driverError?.code ?? '')) throw err;
        });
  } finally {
    await ds.destroy();
  }
}

/** Drops the database named in the URL, its connections closed first (connecting to `postgres`); errors are ignored. */
export async function dropDatabase(url: string): Promise<void> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.replace(/^\//, ''));
  target.pathname = '/postgres';
  const ds = new DataSource({ type: 'postgres', url: target.toString() });
  await ds.initialize();
  try {
    await ds
      .query(`DROP DATABASE IF EXISTS "${name.replace(/"/g, '""')}" WITH (FORCE)`)
      .catch(() => undefined);
  } finally {
    await ds.destroy();
  }
}

/** The session advisory lock that migrating processes take turns on (any constant of ours). */
export const MIGRATION_LOCK = 4_811_200_316;
const MIGRATION_LOCK_POLL_MS = 250;

/**
 * Applies pending migrations; returns the names applied. Processes that start together (the
 * replicas of a rollout) take turns: each holds MIGRATION_LOCK while it migrates, so the first
 * applies what is pending and the others then find nothing to do, where they would otherwise
 * apply the same migration at once and all but one fail. The lock is polled with
 * `pg_try_advisory_lock` rather than waited for in one statement: a waiting statement keeps a
 * snapshot open, and a migration that builds an index CONCURRENTLY waits for every older snapshot
 * of the database, so the two would wait for each other forever.
 */
export async function runMigrations(url: string): Promise<string[]> {
  await ensureDatabase(url);
  const ds = new DataSource(dataSourceOptions(url, 2));
  await ds.initialize();
  const lock = ds.createQueryRunner();
  let held = false;
  try {
    while (!held) {
      const [row] = await lock.query('SELECT pg_try_advisory_lock($1) AS held', [MIGRATION_LOCK]);
      held = row.held;
      if (!held) await new Promise((r) => setTimeout(r, MIGRATION_LOCK_POLL_MS));
    }
    const done = await ds.runMigrations({ transaction: 'each' });
    return done.map((m) => m.name);
  } finally {
    if (held) await lock.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => null);
    await lock.release();
    await ds.destroy();
  }
}
