import { rm } from 'node:fs/promises';

import Redis from 'ioredis';

import { dropDatabase } from '../../libs/database/src/data-source';
import type { TestPgReplica, TestRedisCluster } from './services';

/**
 * Drops this run's database, Redis keys and storage folder (kept with KEEP_TEST_DB=1); stops the
 * primary and standby of TEST_PG_REPLICA=1 (always).
 */
export default async function globalTeardown(): Promise<void> {
  await (globalThis as { testRedisCluster?: TestRedisCluster }).testRedisCluster?.stop();
  const replica = (globalThis as { testPgReplica?: TestPgReplica }).testPgReplica;
  await replica?.destroy();
  if (process.env.KEEP_TEST_DB === '1' || process.env.TEST_DATABASE_URL) return;
  // the replica's primary (and the database on it) is gone with it
  if (!replica) await dropDatabase(process.env.DATABASE_URL as string);

  const redis = new Redis(process.env.REDIS_URL as string);
  const stream = redis.scanStream({ match: `${process.env.REDIS_PREFIX}:*`, count: 1000 });
  for await (const keys of stream)
    if ((keys as string[]).length) await redis.unlink(...(keys as string[]));
  await redis.quit();
  await rm(process.env.STORAGE_DIR as string, { recursive: true, force: true });
}
