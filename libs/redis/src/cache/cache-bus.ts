import { randomUUID } from 'node:crypto';

import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import Redis, { Cluster } from 'ioredis';

import { isCluster, RedisClient } from '../redis-client';

import { RedisService } from '../redis.service';
import {
  BusMember,
  BusMessage,
  InvalidationBus,
  SharedCache,
  SharedCacheOptions,
} from './shared-cache';

/** The bus member name of heartbeats (no cache has it: a cache's name is a word). */
const BEAT = '~beat';
/** How often a process publishes its heartbeat on the bus. */
export const BEAT_MS = 1000;
/** A subscriber that has heard none of its own beats for this long is deaf. */
export const BEAT_TIMEOUT_MS = 3000;

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
 * - A subscriber can also lose messages without a disconnect being seen: on a Redis Cluster,
 *   ioredis moves the subscription to another node when its node fails or leaves, silently. So
 *   each process publishes a numbered heartbeat every BEAT_MS and listens for its own: a number
 *   skipped means messages were lost (every cache forgets everything, as on a reconnection),
 *   and none heard for BEAT_TIMEOUT_MS means the subscriber is deaf (`live` is false until a
 *   beat is heard again).
 */
@Injectable()
export class CacheBus implements InvalidationBus, OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(CacheBus.name);
  private readonly members = new Map<string, BusMember>();
  readonly channel: string;
  private subscriber?: RedisClient;
  private subscribed = false;
  /** Subscribed, but none of this process's beats heard for beatTimeoutMs. */
  private deaf = false;
  /** This process's beats: its id, the number of the next one sent, the next one expected. */
  private readonly id = randomUUID();
  private sent = 0;
  private expected?: number;
  private heardAt = 0;
  private tickAt = Date.now();
  private beating?: NodeJS.Timeout;
  private closed = false;
  /** Tests shorten these. */
  beatMs = BEAT_MS;
  beatTimeoutMs = BEAT_TIMEOUT_MS;

  constructor(readonly redis: RedisService) {
    this.channel = redis.key('cache', 'bus');
  }

  /** True while invalidations are heard: only then may caches serve from memory. */
  get live(): boolean {
    return this.subscribed && !this.deaf;
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

  /** Subscribes when the process has caches (a process without any opens no connection). */
  onModuleInit(): void {
    if (!this.members.size) return;
    const client = this.redis.client;
    if (isCluster(client)) this.listenOnNode(client);
    else this.listen(this.redis.duplicate());
    this.tickAt = Date.now();
    this.beating = setInterval(() => this.beat(), this.beatMs);
    this.beating.unref();
  }

  /** Subscribes `sub` to the channel whenever it is ready; its loss bypasses the caches. */
  private listen(sub: RedisClient): void {
    this.subscriber = sub;
    sub.on('ready', () => {
      sub.subscribe(this.channel).then(
        () => {
          this.resetAll();
          this.subscribed = true;
          this.deaf = false;
          this.heardAt = Date.now();
          // the first beat heard sets the count again
          this.expected = undefined;
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

  /**
   * On a Redis Cluster: a connection of the bus's own to one primary (a PUBLISH on any node
   * reaches the subscribers of every node), rather than the Cluster object's subscriber, which
   * ioredis moves to another node when its connection drops without telling anyone: the
   * messages of the gap would be lost unseen. This one's loss is seen (the caches are bypassed,
   * then reset), and when it ends another primary is chosen.
   */
  private listenOnNode(cluster: Cluster): void {
    if (this.closed) return;
    const nodes = cluster.nodes('master');
    if (!nodes.length) {
      setTimeout(() => this.listenOnNode(cluster), 500).unref();
      return;
    }
    const node = nodes[Math.floor(Math.random() * nodes.length)];
    const sub = new Redis({
      ...node.options,
      lazyConnect: false,
      connectionName: 'cache-bus',
      // no reconnection to this node: 'end', then another is chosen
      retryStrategy: () => null,
    });
    sub.on('error', (err: Error) => this.logger.debug(`cache bus: ${err.message}`));
    this.listen(sub);
    sub.once('end', () => setTimeout(() => this.listenOnNode(cluster), 200).unref());
  }

  onModuleDestroy(): void {
    this.subscribed = false;
    this.closed = true;
    clearInterval(this.beating);
    // the cluster's own connection (RedisService closes the others)
    if (this.subscriber instanceof Redis && isCluster(this.redis.client))
      this.subscriber.disconnect();
  }

  /** Checks that the last beats were heard, then publishes the next one. */
  private beat(): void {
    const now = Date.now();
    // a tick that comes late means this process stalled (its messages wait to be read): the
    // silence is its own, not the subscriber's
    const stalled = now - this.tickAt > 2 * this.beatMs;
    this.tickAt = now;
    if (stalled) this.heardAt = Math.max(this.heardAt, now - this.beatMs);
    if (this.subscribed && !this.deaf && now - this.heardAt > this.beatTimeoutMs) {
      this.logger.warn('cache bus: no heartbeat heard, caches bypassed until one is');
      this.deaf = true;
      this.resetAll();
    }
    const message: BusMessage = { c: BEAT, k: [this.id, String(this.sent++)] };
    // a beat not sent is a number skipped: the next one heard resets the caches
    this.redis.client.publish(this.channel, JSON.stringify(message)).catch(() => undefined);
  }

  /** One of this process's beats came back. */
  private heard(n: number): void {
    this.heardAt = Date.now();
    if (this.expected !== undefined && n < this.expected) return; // a late one
    const skipped = this.expected !== undefined && n > this.expected;
    this.expected = n + 1;
    if (skipped || this.deaf) {
      if (skipped) this.logger.warn('cache bus: heartbeats lost, caches reset');
      this.resetAll();
      this.deaf = false;
    }
  }

  private receive(raw: string): void {
    let message: BusMessage;
    try {
      message = JSON.parse(raw) as BusMessage;
    } catch {
      return this.resetAll();
    }
    if (message?.c === BEAT) {
      if (Array.isArray(message.k) && message.k[0] === this.id) this.heard(Number(message.k[1]));
      return;
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
