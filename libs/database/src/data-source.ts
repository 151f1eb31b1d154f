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
    if (!rows.length) await ds.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
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

/** Applies pending migrations; returns the names applied. */
export async function runMigrations(url: string): Promise<string[]> {
  await ensureDatabase(url);
  const ds = new DataSource(dataSourceOptions(url));
  await ds.initialize();
  try {
    const done = await ds.runMigrations({ transaction: 'each' });
    return done.map((m) => m.name);
  } finally {
    await ds.destroy();
  }
}
