import { rm } from 'node:fs/promises';

import { dropDatabase } from '../../libs/database/src/data-source';
import { deleteKeys, scanKeys, testRedis } from './redis';
import { TestRedisCluster } from './services';

/** Drops this run's database, Redis keys and storage folder (kept with KEEP_TEST_DB=1). */
export default async function globalTeardown(): Promise<void> {
  // a cluster of this run goes with its keys
  const cluster = (globalThis as { testRedisCluster?: TestRedisCluster }).testRedisCluster;
  await cluster?.stop();
  if (process.env.KEEP_TEST_DB === '1' || process.env.TEST_DATABASE_URL) return;
  await dropDatabase(process.env.DATABASE_URL as string);

  if (!cluster) {
    const redis = testRedis();
    await deleteKeys(redis, await scanKeys(redis, `${process.env.REDIS_PREFIX}:*`));
    await redis.quit();
  }
  await rm(process.env.STORAGE_DIR as string, { recursive: true, force: true });
}
