import { rm } from 'node:fs/promises';

import Redis from 'ioredis';
import { DataSource } from 'typeorm';

/** Drops this run's database, Redis keys and storage folder (kept with KEEP_TEST_DB=1). */
export default async function globalTeardown(): Promise<void> {
  if (process.env.KEEP_TEST_DB === '1' || process.env.TEST_DATABASE_URL) return;
  const url = new URL(process.env.DATABASE_URL as string);
  const name = url.pathname.slice(1);
  url.pathname = '/postgres';
  const ds = new DataSource({ type: 'postgres', url: url.toString() });
  await ds.initialize();
  await ds.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).catch(() => undefined);
  await ds.destroy();

  const redis = new Redis(process.env.REDIS_URL as string);
  const stream = redis.scanStream({ match: `${process.env.REDIS_PREFIX}:*`, count: 1000 });
  for await (const keys of stream)
    if ((keys as string[]).length) await redis.unlink(...(keys as string[]));
  await redis.quit();
  await rm(process.env.STORAGE_DIR as string, { recursive: true, force: true });
}
