import Redis, { Cluster, RedisOptions } from 'ioredis';

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

/**
 * The connections to every primary: the cluster's (as it last described itself), or the one
 * server. A SCAN, a readiness check or a FLUSH covers all of them.
 */
export function primaries(client: RedisClient): Redis[] {
  return isCluster(client) ? client.nodes('master') : [client];
}

function hostPort(item: string): { host: string; port: number } {
  const at = item.lastIndexOf(':');
  return { host: item.slice(0, at).replace(/^\[|\]$/g, ''), port: Number(item.slice(at + 1)) };
}

/**
 * The options of one server connection for the single and sentinel modes (null in cluster
 * mode, whose connections only a Cluster object makes). `overrides` adjust them (BullMQ's
 * connections take `maxRetriesPerRequest: null` and no command timeout).
 */
export function redisServerOptions(
  config: RedisSettings,
  overrides: Partial<RedisOptions> = {},
): RedisOptions | null {
  const password = config.REDIS_PASSWORD || undefined;
  const tls = config.REDIS_TLS ? {} : undefined;
  const base: RedisOptions = { ...redisOptions(), ...overrides };
  switch (redisMode(config)) {
    case 'cluster':
      return null;
    case 'sentinel':
      return {
        ...base,
        sentinels: config.REDIS_SENTINELS.map(hostPort),
        name: config.REDIS_SENTINEL_NAME,
        password,
        sentinelPassword: password,
        tls,
        sentinelTLS: tls,
        enableTLSForSentinelMode: !!tls,
      };
    default: {
      // the URL's own user, password, database and scheme win; the settings fill the rest
      const url = new URL(config.REDIS_URL);
      return {
        ...base,
        host: url.hostname.replace(/^\[|\]$/g, ''),
        port: Number(url.port || 6379),
        username: url.username ? decodeURIComponent(url.username) : undefined,
        password: url.password ? decodeURIComponent(url.password) : password,
        db: url.pathname.length > 1 ? Number(url.pathname.slice(1)) : 0,
        tls: url.protocol === 'rediss:' ? {} : tls,
      };
    }
  }
}

/** A new connection in the configured mode (`overrides` as for redisServerOptions). */
export function createRedisClient(
  config: RedisSettings,
  overrides: Partial<RedisOptions> = {},
): RedisClient {
  const server = redisServerOptions(config, overrides);
  if (server) return new Redis(server);
  const tls = config.REDIS_TLS ? {} : undefined;
  return new Cluster(config.REDIS_CLUSTER_NODES.map(hostPort), {
    redisOptions: {
      ...redisOptions(),
      ...overrides,
      password: config.REDIS_PASSWORD || undefined,
      tls,
    },
    // reads and writes on the primaries: a replica may lag a counter just incremented
    scaleReads: 'master',
    enableReadyCheck: true,
    maxRedirections: 16,
    retryDelayOnFailover: 100,
    retryDelayOnClusterDown: 100,
    slotsRefreshTimeout: 2000,
    clusterRetryStrategy: (times) => Math.min(times * 200, 2000),
    // a managed cluster announces its nodes by name: TLS checks the name it was asked for
    ...(tls ? { dnsLookup: (address, done) => done(null, address) } : {}),
  });
}
