import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import Redis, { RedisOptions } from 'ioredis';

import { AppConfig } from '@app/config';

import { BatchedGet } from './batched-get';

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

/**
 * The one Redis connection of a process (rate limit, caches, counters), and the key namespace.
 * Every key goes through `key()` so deployments and test runs can share one Redis.
 */
@Injectable()
export class RedisService implements OnApplicationShutdown {
  private readonly logger = new Logger(RedisService.name);
  readonly client: Redis;
  readonly prefix: string;
  /** Reads of the request path, batched: one MGET per turn of the event loop (see BatchedGet). */
  readonly reads: BatchedGet;
  private readonly extra: Redis[] = [];

  constructor(config: AppConfig) {
    this.prefix = config.REDIS_PREFIX;
    this.client = new Redis(config.REDIS_URL, redisOptions());
    this.client.on('error', (err) => this.logger.warn(`redis: ${err.message}`));
    this.reads = new BatchedGet(this.client);
  }

  /** `<prefix>:<parts joined by ':'>` */
  key(...parts: Array<string | number>): string {
    return `${this.prefix}:${parts.join(':')}`;
  }

  /** True while commands can be sent; callers on the hot path skip Redis (fail open) otherwise. */
  get ready(): boolean {
    return this.client.status === 'ready';
  }

  /** A second connection (e.g. for pub/sub subscribe mode), closed with this service. */
  duplicate(): Redis {
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
