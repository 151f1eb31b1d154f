import 'reflect-metadata';

import { runMigrations } from '../../libs/database/src/data-source';
import { TestPgReplica, TestRedisCluster } from './services';

/**
 * Once per `jest` run: a fresh database named for this run (TEST_DATABASE_URL overrides it),
 * migrated; and a Redis key prefix of its own. Both are handed to the suites through the env.
 * `TEST_REDIS=cluster` runs the suites against a 3-primary Redis Cluster started here (and
 * stopped by global-teardown) instead of the Redis at REDIS_URL. With TEST_PG_REPLICA=1, the
 * database lives on a Postgres primary of the run's own with an asynchronous streaming standby
 * replaying TEST_PG_REPLICA_DELAY_MS (default 500) behind it, handed to the suites as
 * DATABASE_REPLICA_URLS (stopped by global-teardown).
 */
export default async function globalSetup(): Promise<void> {
  const run = `${process.pid}_${Date.now().toString(36)}`;
  const name = `linkmgmt_test_${run}`;
  let base = process.env.TEST_DATABASE_URL ?? `postgres://postgres@127.0.0.1:5432/${name}`;
  if (process.env.TEST_PG_REPLICA === '1') {
    const replica = await TestPgReplica.start(Number(process.env.TEST_PG_REPLICA_DELAY_MS ?? 500));
    (globalThis as { testPgReplica?: TestPgReplica }).testPgReplica = replica;
    base = replica.primary.url(name);
    process.env.DATABASE_REPLICA_URLS = replica.standby.url(name);
  }
  process.env.DATABASE_URL = base;
  process.env.REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  if (process.env.TEST_REDIS === 'cluster') {
    const cluster = await TestRedisCluster.start();
    (globalThis as { testRedisCluster?: TestRedisCluster }).testRedisCluster = cluster;
    process.env.REDIS_CLUSTER_NODES = cluster.nodes;
  }
  process.env.REDIS_PREFIX = `t${run}`.slice(0, 32);
  process.env.STORAGE_DIR = `/tmp/linkmgmt-test-${run}`;
  await runMigrations(base);
}
