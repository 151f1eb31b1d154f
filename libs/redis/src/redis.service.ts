import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';

import { AppConfig } from '@app/config';

import { BatchedGet } from './batched-get';
import { createRedisClient, RedisClient } from './redis-client';

/**
 * The one Redis connection of a process (rate limit, caches, counters), and the key namespace.
 * Every key goes through `key()` so deployments and test runs can share one Redis.
 */
@Injectable()
export class RedisService implements OnApplicationShutdown {
  private readonly logger = new Logger(RedisService.name);
  readonly client: RedisClient;
  readonly prefix: string;
  /** Reads of the request path, batched: one MGET per turn of the event loop (see BatchedGet). */
  readonly reads: BatchedGet;
  private readonly extra: RedisClient[] = [];

  constructor(config: AppConfig) {
    this.prefix = config.REDIS_PREFIX;
    this.client = createRedisClient(config);
    this.client.on('error', (err) => this.logger.warn(`redis: ${err.message}`));
    this.reads = new BatchedGet(this.client);
  }

  /** `<prefix>:<parts joined by ':'>` */
  key(...parts: Array<string | number>): string {
    return `${this.prefix}:${parts.join(':')}`;
  }

  /**
   * `<prefix>:{<tag parts joined by ':'>}:<parts joined by ':'>`: keys that share a tag share a
   * Redis Cluster hash slot, so one script or transaction may touch them together
   * (docs/scaling.md#key-layout-and-hash-tags).
   */
  slotKey(tag: Array<string | number>, ...parts: Array<string | number>): string {
    return `${this.prefix}:{${tag.join(':')}}:${parts.join(':')}`;
  }

  /** True while commands can be sent; callers on the hot path skip Redis (fail open) otherwise. */
  get ready(): boolean {
    return this.client.status === 'ready';
  }

  /** A second connection (e.g. for pub/sub subscribe mode), closed with this service. */
  duplicate(): RedisClient {
    const conn = this.client.duplicate();
    conn.on('error', (err) => this.logger.warn(`redis: ${err.message}`));
    this.extra.push(conn);
    return conn;
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all(
      [this.client, ...this.extra].map((c) => c.quit().catch(() => c.disconnect())),
    );
  }
}
