import { Cluster } from 'ioredis';

import type { AppConfig } from '@app/config';
import { createRedisClient, redisMode, redisServerOptions } from '@app/redis';

/**
 * Prefix of every BullMQ key. A queue's Lua scripts touch many of its keys at once, so in
 * cluster mode they must share a slot: the prefix is a hash tag (`{lm:bull}:qr-render:…`).
 * The other modes keep the untagged prefix, so a running single-server deployment keeps its
 * queued jobs on upgrade (moving to a cluster moves the data anyway: docs/scaling.md).
 */
export function queuePrefix(config: AppConfig): string {
  const prefix = `${config.REDIS_PREFIX}:bull`;
  return redisMode(config) === 'cluster' ? `{${prefix}}` : prefix;
}

/** Cluster connections handed to BullMQ, which does not close a connection it was given. */
export const sharedQueueConnections: Cluster[] = [];

/**
 * BullMQ's connection: options in the single and sentinel modes (BullMQ opens and closes its
 * own connections), a Cluster object in cluster mode (BullMQ duplicates it for its workers'
 * blocking reads; QueueSettle closes it at shutdown).
 */
export function queueConnection(config: AppConfig) {
  const overrides = { maxRetriesPerRequest: null, commandTimeout: undefined };
  const server = redisServerOptions(config, overrides);
  if (server) return server;
  const cluster = createRedisClient(config, overrides) as Cluster;
  sharedQueueConnections.push(cluster);
  return cluster;
}
