import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import type { RedisClient } from '../redis-client';

import { RedisService } from '../redis.service';
import {
  BusMember,
  BusMessage,
  InvalidationBus,
  SharedCache,
  SharedCacheOptions,
} from './shared-cache';

/**
 * The invalidation channel shared by every SharedCache of a process: one Redis subscriber
 * connection, one channel (`<prefix>:cache:bus`, messages `{c: cache name, k: names}`).
 *
 * The rules every cache follows, written once:
 * - `live` is true only while the subscriber is subscribed. While it is not (Redis down,
 *   reconnecting), no cache serves or keeps anything in memory: a change published meanwhile
 *   would not be heard.
 * - On every (re)subscription every cache forgets everything, since messages may have been missed
 *   while disconnected, and reads begun before it are not cached (see InvalidationLog).
 */
@Injectable()
export class CacheBus implements InvalidationBus, OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(CacheBus.name);
  private readonly members = new Map<string, BusMember>();
  readonly channel: string;
  private subscriber?: RedisClient;
  private subscribed = false;

  constructor(readonly redis: RedisService) {
    this.channel = redis.key('cache', 'bus');
  }

  /** True while invalidations are heard: only then may caches serve from memory. */
  get live(): boolean {
    return this.subscribed;
  }

  /** A cache on this bus (its name must be unique in the process). */
  cache<V extends object>(options: SharedCacheOptions<V>): SharedCache<V> {
    return new SharedCache<V>(this, options);
  }

  /**
   * Tells every process's member `name` (this one's included) that `names` changed. For members
   * that are not SharedCaches (which publish through `invalidate`). Rejects while Redis is
   * unreachable.
   */
  async publish(name: string, names: string[]): Promise<void> {
    const message: BusMessage = { c: name, k: names };
    await this.redis.client.publish(this.channel, JSON.stringify(message));
  }

  join(name: string, member: BusMember): void {
    if (this.members.has(name)) throw new Error(`cache ${name} is already on the bus`);
    this.members.set(name, member);
  }

  /** Subscribes when the process has caches (the worker has none and opens no connection). */
  onModuleInit(): void {
    if (!this.members.size) return;
    const sub = this.redis.duplicate();
    this.subscriber = sub;
    sub.on('ready', () => {
      sub.subscribe(this.channel).then(
        () => {
          this.resetAll();
          this.subscribed = true;
        },
        (err: Error) => this.logger.warn(`cache bus subscribe failed: ${err.message}`),
      );
    });
    const down = () => {
      if (!this.subscribed) return;
      this.subscribed = false;
      this.resetAll();
    };
    sub.on('close', down);
    sub.on('end', down);
    sub.on('message', (channel: string, raw: string) => {
      if (channel === this.channel) this.receive(raw);
    });
  }

  onModuleDestroy(): void {
    this.subscribed = false;
  }

  private receive(raw: string): void {
    let message: BusMessage;
    try {
      message = JSON.parse(raw) as BusMessage;
    } catch {
      return this.resetAll();
    }
    const member = this.members.get(message?.c);
    if (!member) return;
    if (Array.isArray(message.k)) member.drop(message.k.map(String));
    else member.reset();
  }

  private resetAll(): void {
    for (const member of this.members.values()) member.reset();
  }
}
