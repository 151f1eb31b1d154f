// relative: global-teardown loads this without jest's path aliases
import { createRedisClient, primaries, RedisClient } from '../../libs/redis/src/redis-client';

const list = (value: string | undefined) =>
  (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

/**
 * A client of the Redis this run uses, in its mode (one server, the cluster of
 * `TEST_REDIS=cluster`, or sentinels), read from the env as the app reads it. `env` overrides.
 */
export function testRedis(env: NodeJS.ProcessEnv = process.env): RedisClient {
  return createRedisClient(
    {
      REDIS_URL: env.REDIS_URL ?? 'redis://127.0.0.1:6379',
      REDIS_CLUSTER_NODES: list(env.REDIS_CLUSTER_NODES),
      REDIS_SENTINELS: list(env.REDIS_SENTINELS),
      REDIS_SENTINEL_NAME: env.REDIS_SENTINEL_NAME ?? 'mymaster',
      REDIS_PASSWORD: env.REDIS_PASSWORD,
      REDIS_TLS: env.REDIS_TLS === 'true' || env.REDIS_TLS === '1',
    },
    // tests wait for a cluster to settle rather than fail on the first try
    { maxRetriesPerRequest: 5, commandTimeout: 5000 },
  );
}

/** Every key matching `pattern`, from every primary (a SCAN covers one node only). */
export async function scanKeys(client: RedisClient, pattern: string): Promise<string[]> {
  const found: string[] = [];
  for (const node of primaries(client)) {
    for await (const keys of node.scanStream({ match: pattern, count: 1000 }))
      found.push(...(keys as string[]));
  }
  return found;
}

/** Deletes keys one at a time (a DEL of several must name keys of one cluster slot). */
export async function deleteKeys(client: RedisClient, keys: string[]): Promise<void> {
  await Promise.all(keys.map((key) => client.unlink(key)));
}
