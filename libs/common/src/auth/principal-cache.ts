import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import type Redis from 'ioredis';
import { LRUCache } from 'lru-cache';

import { AppConfig } from '@app/config';
import { Plan, User } from '@app/database';
import { RedisService } from '@app/redis';

/** A key's user with their own plan, as read from Postgres (expiry is checked on every use). */
export type KeyOwner = User & { plan: Plan };

/**
 * The owners of recently used API keys, by key digest, so an API call costs no Postgres query
 * for its key (measured: about half the CPU of a cheap call such as `GET /api/account`).
 *
 * Held for AUTH_CACHE_SECONDS at most, and only while this process hears invalidations: every
 * change to a user (plan, account, deletion) calls `forgetUser` after it commits, which drops the
 * entries here and publishes the user id to every replica. While the subscriber is not connected
 * (Redis down, reconnecting), nothing is cached or served from the cache, and on reconnecting
 * everything is forgotten, since messages may have been missed. Changes made behind the API's
 * back (SQL by hand) are seen within AUTH_CACHE_SECONDS. Time-based expiry (key, membership) is
 * evaluated on every request from the cached dates, so it is exact.
 */
@Injectable()
export class PrincipalCache implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(PrincipalCache.name);
  private readonly entries: LRUCache<string, KeyOwner> | null;
  private readonly channel: string;
  private subscriber?: Redis;
  /** True while subscribed: only then are entries kept and served. */
  private live = false;
  /** Counts invalidations, so a read that raced one is not cached (see `set`). */
  private generation = 0;

  constructor(
    private readonly redis: RedisService,
    config: AppConfig,
  ) {
    const seconds = config.AUTH_CACHE_SECONDS;
    this.entries = seconds > 0 ? new LRUCache({ max: 10_000, ttl: seconds * 1000 }) : null;
    this.channel = redis.key('auth', 'invalidate');
  }

  onModuleInit(): void {
    if (!this.entries) return;
    const sub = this.redis.duplicate();
    this.subscriber = sub;
    sub.on('ready', () => {
      sub.subscribe(this.channel).then(
        () => {
          // entries kept, and reads begun, before a disconnection may have missed their
          // invalidation
          this.entries?.clear();
          this.generation += 1;
          this.live = true;
        },
        (err: Error) => this.logger.warn(`auth cache subscribe failed: ${err.message}`),
      );
    });
    sub.on('close', () => this.stop());
    sub.on('end', () => this.stop());
    sub.on('message', (channel: string, message: string) => {
      if (channel === this.channel) this.drop(Number(message));
    });
  }

  onModuleDestroy(): void {
    this.stop();
  }

  /** The cached owner of a key digest, if any. */
  get(digest: string): KeyOwner | undefined {
    return this.live ? this.entries?.get(digest) : undefined;
  }

  /** The point a Postgres read of a key's owner starts from: pass it to `set`. */
  mark(): number {
    return this.generation;
  }

  /** Caches what a read begun at `mark` found, unless an invalidation came in meanwhile. */
  set(digest: string, owner: KeyOwner, mark: number): void {
    if (this.live && mark === this.generation) this.entries?.set(digest, owner);
  }

  /** Forgets a user's keys here and on every replica. Call it after the change committed. */
  async forgetUser(userId: number): Promise<void> {
    this.drop(userId);
    if (!this.entries) return;
    try {
      if (!this.redis.ready) throw new Error('redis is not connected');
      await this.redis.client.publish(this.channel, String(userId));
    } catch (err) {
      // the other replicas' subscribers are cut off too (they serve nothing from their cache
      // then), or their entries run out within AUTH_CACHE_SECONDS
      this.logger.warn(`auth cache invalidation not published: ${(err as Error).message}`);
    }
  }

  private drop(userId: number): void {
    this.generation += 1;
    if (!this.entries) return;
    for (const [digest, owner] of this.entries.entries()) {
      if (owner.id === userId) this.entries.delete(digest);
    }
  }

  private stop(): void {
    this.live = false;
    this.generation += 1;
    this.entries?.clear();
  }
}
