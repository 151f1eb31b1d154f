import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import Redis, { Cluster } from 'ioredis';

import { CacheBus, isCluster, RedisClient, RedisService } from '@app/redis';

import { LISTEN_TTL_MS, LIVE_BUS_MEMBER, LiveKeys, LiveMessage, LiveVisit } from './live-keys';

/** How often the hub renews its users' listening marks. */
const REFRESH_MS = 1000;
/** A stream waits this long for its channel's subscription before it is refused (503). */
const SUBSCRIBE_TIMEOUT_MS = 3000;

/** One open stream, as the hub sees it. */
export interface LiveListener {
  /** the workspace owner whose visits it gets */
  userId: number;
  /** one short code's visits only, or null for all of the owner's */
  linkId: number | null;
  deliver(visits: LiveVisit[]): void;
}

/**
 * The subscriber side of the live stream, one per api process: one Redis connection in subscribe
 * mode, opened on the first stream, subscribed to the channel of each user with a stream here
 * (`live:{u<user>}`), so a process receives only the visits of the users it streams, whichever
 * replica recorded them. While it has streams of a user, it keeps that user in `live:users`
 * (renewed every second, lapsing after LISTEN_TTL_MS), which tells every replica to publish the
 * user's visits.
 *
 * On a Redis Cluster the subscription is on a connection of its own to one primary, as the cache
 * bus's (a PUBLISH on any node reaches every node's subscribers); when that connection ends, the
 * hub subscribes again on another primary. A stream is best effort: visits published while the
 * subscription is down are not replayed.
 */
@Injectable()
export class LiveHub implements OnModuleDestroy {
  private readonly logger = new Logger(LiveHub.name);
  readonly keys: LiveKeys;
  private readonly listeners = new Map<number, Set<LiveListener>>();
  private sub?: RedisClient;
  private ticker?: NodeJS.Timeout;
  private closed = false;

  constructor(
    private readonly redis: RedisService,
    private readonly bus: CacheBus,
  ) {
    this.keys = new LiveKeys(redis);
  }

  /** Open streams in this process. */
  get size(): number {
    let n = 0;
    for (const set of this.listeners.values()) n += set.size;
    return n;
  }

  /**
   * Starts delivering the visits of `l.userId` to `l`: resolves once the channel is subscribed
   * and every replica was told to publish them. Rejects when Redis cannot be reached.
   */
  async add(l: LiveListener): Promise<void> {
    let set = this.listeners.get(l.userId);
    const first = !set;
    if (!set) this.listeners.set(l.userId, (set = new Set()));
    set.add(l);
    if (!first) return;
    try {
      await withTimeout(this.subscriber().subscribe(this.keys.channel(l.userId)));
      await this.redis.client.zadd(this.keys.listeners, Date.now() + LISTEN_TTL_MS, l.userId);
      // every replica publishes this user's visits from now on, not from its next read
      await this.bus.publish(LIVE_BUS_MEMBER, [String(l.userId)]);
    } catch (err) {
      this.remove(l);
      throw err;
    }
    this.tick();
  }

  /** Stops delivering to `l` (the last stream of a user unsubscribes its channel). */
  remove(l: LiveListener): void {
    const set = this.listeners.get(l.userId);
    if (!set?.delete(l) || set.size) return;
    this.listeners.delete(l.userId);
    // the listening mark lapses by itself (another replica may stream this user too)
    this.sub?.unsubscribe(this.keys.channel(l.userId)).catch(() => undefined);
  }

  onModuleDestroy(): void {
    this.closed = true;
    clearInterval(this.ticker);
    if (this.sub instanceof Redis && isCluster(this.redis.client)) this.sub.disconnect();
  }

  /** Renews the marks of the users streamed here; forgets the lapsed marks. */
  private tick(): void {
    if (!this.ticker) {
      this.ticker = setInterval(() => this.tick(), REFRESH_MS);
      this.ticker.unref();
    }
    if (!this.listeners.size || !this.redis.ready) return;
    const until = Date.now() + LISTEN_TTL_MS;
    const args = [...this.listeners.keys()].flatMap((id) => [until, id]);
    this.redis.client
      .multi()
      .zadd(this.keys.listeners, ...args)
      .zremrangebyscore(this.keys.listeners, '-inf', Date.now())
      .pexpire(this.keys.listeners, LISTEN_TTL_MS * 2)
      .exec()
      .catch((err: Error) => this.logger.warn(`live listeners not renewed: ${err.message}`));
  }

  private subscriber(): RedisClient {
    if (this.sub) return this.sub;
    const client = this.redis.client;
    return isCluster(client) ? this.listenOnNode(client) : this.listen(this.redis.duplicate());
  }

  private listen(sub: RedisClient): RedisClient {
    this.sub = sub;
    sub.on('message', (channel: string, raw: string) => this.receive(channel, raw));
    return sub;
  }

  /** On a cluster: one primary's connection; when it ends, another primary, every channel again. */
  private listenOnNode(cluster: Cluster): RedisClient {
    const nodes = cluster.nodes('master');
    const node = nodes[Math.floor(Math.random() * nodes.length)];
    const sub = node
      ? new Redis({
          ...node.options,
          lazyConnect: false,
          connectionName: 'live-hub',
          retryStrategy: () => null,
        })
      : this.redis.duplicate();
    sub.on('error', (err: Error) => this.logger.debug(`live hub: ${err.message}`));
    sub.once('end', () => {
      if (this.closed || this.sub !== sub) return;
      this.sub = undefined;
      setTimeout(() => {
        if (this.closed || this.sub) return;
        const channels = [...this.listeners.keys()].map((id) => this.keys.channel(id));
        const next = this.subscriber();
        if (channels.length)
          next
            .subscribe(...channels)
            .catch((err: Error) => this.logger.warn(`live hub: ${err.message}`));
      }, 200).unref();
    });
    return this.listen(sub);
  }

  private receive(channel: string, raw: string): void {
    const userId = this.keys.userOf(channel);
    const set = this.listeners.get(userId);
    if (!set) return;
    let message: LiveMessage;
    try {
      message = JSON.parse(raw) as LiveMessage;
    } catch {
      return;
    }
    if (message?.u !== userId || !Array.isArray(message.e)) return;
    for (const l of set) {
      const visits = l.linkId === null ? message.e : message.e.filter((v) => v.link === l.linkId);
      if (visits.length) l.deliver(visits);
    }
  }
}

function withTimeout<T>(p: Promise<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error('live: subscription timed out')),
      SUBSCRIBE_TIMEOUT_MS,
    );
    p.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (err) => {
        clearTimeout(timer);
        reject(err);
      },
    );
  });
}
