import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

import { RedisService } from '@app/redis';

/** How often a named key's `lastused` is written at most. */
export const KEY_USAGE_INTERVAL_MS = 60_000;

/**
 * `lastused` of named keys, written at most once a minute per key over every api replica, off
 * the request path: a process remembers when it last wrote a key; past the minute, a Redis
 * `SET NX EX 60` elects one replica, which runs the UPDATE after the response.
 */
@Injectable()
export class KeyUsage {
  private readonly logger = new Logger(KeyUsage.name);
  private readonly written = new Map<number, number>();

  constructor(
    private readonly redis: RedisService,
    @InjectDataSource() private readonly db: DataSource,
  ) {}

  /** A request used key `id`. Never waits and never throws. */
  used(id: number): void {
    const now = Date.now();
    const last = this.written.get(id);
    if (last !== undefined && now - last < KEY_USAGE_INTERVAL_MS) return;
    this.written.set(id, now);
    if (this.written.size > 100_000) this.written.clear();
    setImmediate(() => void this.write(id));
  }

  private async write(id: number): Promise<void> {
    try {
      const elected = await this.redis.client.set(
        this.redis.key('keyused', id),
        '1',
        'EX',
        KEY_USAGE_INTERVAL_MS / 1000,
        'NX',
      );
      if (elected !== 'OK') return;
      await this.db.query(`UPDATE api_keys SET last_used = now() WHERE id = $1`, [id]);
    } catch (err) {
      this.logger.warn(`lastused of key ${id} not written: ${(err as Error).message}`);
    }
  }
}
