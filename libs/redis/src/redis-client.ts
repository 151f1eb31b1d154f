import Redis, { Cluster, ClusterOptions, RedisOptions } from 'ioredis';

import type { AppConfig } from '@app/config';

/**
 * A connection in any of the three Redis modes (docs/scaling.md): one server (`REDIS_URL`),
 * a Redis Cluster (`REDIS_CLUSTER_NODES`), or a master found through sentinels
 * (`REDIS_SENTINELS`). Both classes share the command interface; code that needs one of the
 * differences (a cluster's nodes, slots) asks `isCluster`.
 */
export type RedisClient = Redis | Cluster;

export type RedisMode = 'single' | 'cluster' | 'sentinel';

/** ioredis options shared by every connection: fail fast while Redis is down, reconnect forever. */
export function redisOptions(): RedisOptions {
  return {
    maxRetriesPerRequest: 1,
    enableReadyCheck: true,
    connectTimeout: 2000,
    commandTimeout: 2000,
    retryStrategy: (times) => Math.min(times * 200, 2000),
  };
}

type RedisSettings = Pick<
  AppConfig,
  | 'REDIS_URL'
  | 'REDIS_CLUSTER_NODES'
  | 'REDIS_SENTINELS'
  | 'REDIS_SENTINEL_NAME'
  | 'REDIS_PASSWORD'
  | 'REDIS_TLS'
>;

/** The mode the settings choose: cluster nodes first, then sentinels, else the one server. */
export function redisMode(config: RedisSettings): RedisMode {
  if (config.REDIS_CLUSTER_NODES.length) return 'cluster';
  if (config.REDIS_SENTINELS.length) return 'sentinel';
  return 'single';
}

export function isCluster(client: RedisClient): client is Cluster {
  return (client as Cluster).isCluster === true;
}

function hostPort(item: string): { host: string; port: number } {
  const at = item.lastIndexOf(':');
  return { host: item.slice(0, at).replace(/^\[|\]$/g, ''), port: Number(item.slice(at + 1)) };
}

/**
 * A new connection in the configured mode. `overrides` adjust the per-server options (BullMQ's
 * connections take `maxRetriesPerRequest: null`, no command timeout).
 */
export function createRedisClient(
  config: RedisSettings,
  overrides: Partial<RedisOptions> = {},
): RedisClient {
  const password = config.REDIS_PASSWORD || undefined;
  const tls = config.REDIS_TLS ? {} : undefined;
  const base: RedisOptions = { ...redisOptions(), ...overrides };
  switch (redisMode(config)) {
    case 'cluster': {
      const options: ClusterOptions = {
        redisOptions: { ...base, password, tls },
        // reads and writes on the primaries: replicas may lag a counter just incremented
        scaleReads: 'master',
        enableReadyCheck: true,
        maxRedirections: 16,
        retryDelayOnFailover: 100,
        retryDelayOnClusterDown: 100,
        slotsRefreshTimeout: 2000,
        clusterRetryStrategy: (times) => Math.min(times * 200, 2000),
        // a managed cluster announces its nodes by name; TLS checks the name it was asked for
        ...(tls ? { dnsLookup: (address, done) => done(null, address) } : {}),
      };
      return new Cluster(config.REDIS_CLUSTER_NODES.map(hostPort), options);
    }
    case 'sentinel':
      return new Redis({
        ...base,
        sentinels: config.REDIS_SENTINELS.map(hostPort),
        name: config.REDIS_SENTINEL_NAME,
        password,
        sentinelPassword: password,
        tls,
        sentinelTLS: tls,
        enableTLSForSentinelMode: !!tls,
      });
    default: {
      // the URL's own password and scheme win; the settings fill what it leaves out
      const url = new URL(config.REDIS_URL);
      return new Redis(config.REDIS_URL, {
        ...base,
        ...(password && !url.password ? { password } : {}),
        ...(tls && url.protocol !== 'rediss:' ? { tls } : {}),
      });
    }
  }
}
