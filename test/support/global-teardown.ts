import { rm } from 'node:fs/promises';

import { dropDatabase } from '../../libs/database/src/data-source';
import { deleteKeys, scanKeys, testRedis } from './redis';
import type { TestPgReplica, TestRedisCluster } from './services';

/**
 * Drops this run's database, Redis keys and storage folder (kept with KEEP_TEST_DB=1); stops the
 * primary and standby of TEST_PG_REPLICA=1 (always).
 */
export default async function globalTeardown(): Promise<void> {
  // a cluster of this run goes with its keys
  const cluster = (globalThis as { testRedisCluster?: TestRedisCluster }).testRedisCluster;
  await cluster?.stop();
  const replica = (globalThis as { testPgReplica?: TestPgReplica }).testPgReplica;
  await replica?.destroy();
  if (process.env.KEEP_TEST_DB === '1' || process.env.TEST_DATABASE_URL) return;
  // the replica's primary (and the database on it) is gone with it
  if (!replica) await dropDatabase(process.env.DATABASE_URL as string);

  if (!cluster) {
    const redis = testRedis();
    await deleteKeys(redis, await scanKeys(redis, `${process.env.REDIS_PREFIX}:*`));
    await redis.quit();
  }
  await rm(process.env.STORAGE_DIR as string, { recursive: true, force: true });
}
