import { Logger } from '@nestjs/common';
import { LRUCache } from 'lru-cache';

import { CACHE_BUCKETS, cacheBucket, groupBySlot } from '../key-slot';
import { isCluster } from '../redis-client';
import type { RedisService } from '../redis.service';
import { InvalidationLog } from './invalidation-log';

/** What a cache does with a message from the bus. */
export interface BusMember {
  /** Drops `names` (keys or tags) from this process's memory. */
  drop(names: string[]): void;
  /** Drops everything: invalidations may have been missed. */
  reset(): void;
}

/** A message on the bus (see SharedCache.invalidate). */
export interface BusMessage {
  /** the cache's name */
  c: string;
  /** keys or tags */
  k: string[];
}

/** What a SharedCache needs of its bus (CacheBus). */
export interface InvalidationBus {
  /** True while invalidations are heard: only then may caches serve from memory. */
  readonly live: boolean;
  readonly redis: RedisService;
  /** The channel invalidations are published on. */
  readonly channel: string;
  join(name: string, member: BusMember): void;
}

/** How a cache keeps values in Redis, shared by every process (optional). */
export interface RemoteLayer<V extends object> {
  /** Seconds Redis keeps a value, and a known-missing answer. */
  ttlSeconds: number;
  missingTtlSeconds: number;
  encode(value: V): string;
  /** May throw on an unreadable entry: the loader answers instead and overwrites it. */
  decode(raw: string): V;
}

export interface SharedCacheOptions<V extends object> {
  /** Unique per process; also the Redis key segment of the remote layer (`<prefix>:<name>:<key>`). */
  name: string;
  /** Entries kept in this process's LRU; 0 = no in-process layer. */
  max: number;
  /** Milliseconds an entry lives in this process. */
  ttlMs: number;
  /** Milliseconds a known-missing answer lives in this process (default ttlMs). */
  missingTtlMs?: number;
  /** Whether "no such thing" answers are cached (default true). */
  cacheMissing?: boolean;
  /** Names besides its key by which an entry is invalidated (e.g. its owner, `user:7`). */
  tags?: (value: V) => string[];
  remote?: RemoteLayer<V>;
}

/** A later repeat of every invalidation: it catches a replica that re-filled Redis from a read made just before the change committed. */
export const REPEAT_INVALIDATION_MS = 2000;
/** Keys per DEL command when invalidating many at once. */
const DEL_BATCH = 500;
const MISSING_VALUE = '-';
/** lru-cache holds no null: the marker of a known-missing answer. */
const MISSING = Object.freeze({ missing: true as const });
type Missing = typeof MISSING;
const NO_TAGS: readonly string[] = [];
/** What answers a key no memory or Redis holds: the value, or null when there is no such thing. */
type Loader<V> = (key: string) => Promise<V | null>;
/** Lookups under way, by key. */
type Lookups<V> = Map<string, Promise<V | null>>;

/**
 * A read-through cache whose entries stay consistent across api replicas: in-process LRU →
 * (optionally) Redis → the loader (Postgres). The rules, in one place:
 * - invalidation: `invalidate(names)` after a change commits drops the names here, deletes their
 *   Redis entries and publishes them on the CacheBus, so every replica drops them; it is done
 *   again REPEAT_INVALIDATION_MS later. While Redis is unreachable, invalidations wait and are
 *   sent when it is back.
 * - races: a load that an invalidation overtook returns its answer but caches it nowhere.
 * - bypass: while the bus is not live (Redis unreachable), nothing is served from or kept in
 *   memory, and Redis is skipped: every lookup asks the loader (fail open, never stale).
 * - concurrent lookups of one key in a turn of the event loop share one Redis read, and lookups
 *   that reach the loader while it runs share its load.
 */
export class SharedCache<V extends object> implements BusMember {
  private readonly logger: Logger;
  private readonly local: LRUCache<string, V | Missing> | null;
  private readonly byTag = new Map<string, Set<string>>();
  /**
   * This turn's lookups that went past memory, by key (concurrent lookups of a key in a turn share
   * one read): a Map made for the turn and dropped after it, never deleted from. Not one Map for
   * the process that takes and deletes a key per lookup: such a Map replaces its hash table every
   * few dozen lookups, and V8 links each replaced table to its successor (for iterators), so the
   * chain from a table that had reached the old generation kept every later lookup's key, promise
   * and value alive through young-generation collections until a full one. On the cold redirect
   * that was ~700 KB promoted at every scavenge, and scavenges 4× as long as the bare MGET's
   * (docs/performance.md, "The cold redirect's tail").
   */
  private turn: Lookups<V> | null = null;
  /** Loads by the loader under way (Redis did not hold the key), by key: shared until they settle. */
  private readonly loads = new Map<string, Promise<V | null>>();
  private readonly log = new InvalidationLog();
  private readonly timers = new Set<NodeJS.Timeout>();
  private pending = new Set<string>();
  private lastWarning = 0;
  /** The part of each Redis key before the cache key: one, or one per bucket on a cluster. */
  private readonly remotePrefixes: string[];

  constructor(
    private readonly bus: InvalidationBus,
    private readonly options: SharedCacheOptions<V>,
  ) {
    this.logger = new Logger(`Cache:${options.name}`);
    this.local =
      options.max > 0
        ? new LRUCache<string, V | Missing>({
            max: options.max,
            ttl: options.ttlMs,
            dispose: options.tags ? (value, key) => this.untag(key, value) : undefined,
          })
        : null;
    const redis = bus.redis;
    // every remote key is one of these and the cache key (remoteKey): built once, not per read
    this.remotePrefixes = isCluster(redis.client)
      ? Array.from({ length: CACHE_BUCKETS }, (_, b) => redis.slotKey([options.name, b], ''))
      : [redis.key(options.name, '')];
    bus.join(options.name, this);
    bus.redis.client.on('ready', () => void this.sendPending());
  }

  /** From memory only: the value, null when known missing, undefined when not held (or not live). */
  peek(key: string): V | null | undefined {
    if (!this.local || !this.bus.live) return undefined;
    const hit = this.local.get(key);
    if (hit === undefined) return undefined;
    return hit === MISSING ? null : (hit as V);
  }

  /**
   * Memory, then Redis, then `load`; null when there is no such thing. Lookups of a key in one turn
   * of the event loop share one Redis read; those that reach the loader while it runs share it.
   */
  get(key: string, load: Loader<V>): Promise<V | null> {
    const held = this.peek(key);
    if (held !== undefined) return Promise.resolve(held);
    let turn = this.turn;
    if (!turn) {
      turn = this.turn = new Map();
      setImmediate(this.endTurn);
    }
    let lookup = turn.get(key);
    if (!lookup) {
      lookup = this.fetch(key, load, turn);
      turn.set(key, lookup);
    }
    return lookup;
  }

  private readonly endTurn = (): void => {
    this.turn = null;
  };

  /**
   * Invalidates keys (or tags) here and on every replica. Call it after the change committed; a
   * new key too, since its "missing" answer may be cached.
   */
  async invalidate(names: Iterable<string>): Promise<void> {
    const unique = [...new Set(names)];
    if (!unique.length) return;
    await this.invalidateNow(unique);
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      void this.invalidateNow(unique);
    }, REPEAT_INVALIDATION_MS);
    timer.unref();
    this.timers.add(timer);
  }

  /** Stops the repeat timers (module shutdown). */
  close(): void {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }

  // ---- BusMember: messages from the bus (this process's own included) ----------------------

  drop(names: string[]): void {
    this.log.invalidate(names);
    if (!this.local) return;
    for (const name of names) {
      this.local.delete(name);
      const keys = this.byTag.get(name);
      if (keys) for (const key of [...keys]) this.local.delete(key);
    }
  }

  reset(): void {
    this.log.invalidateAll();
    this.local?.clear();
    this.byTag.clear();
  }

  // ---- reading -----------------------------------------------------------------------------

  /**
   * Redis, then `load` (shared through `loads` until it settles); the lookup leaves its turn's
   * Map once answered (`leave`), so a later lookup in the same turn reads again. Written with one
   * `then` per step rather than as an async function: a cold redirect (every alias read from
   * Redis) pays for each promise and closure of this path, and the garbage collector for each.
   */
  private fetch(key: string, load: Loader<V>, turn: Lookups<V>): Promise<V | null> {
    const mark = this.log.mark();
    const remote = this.options.remote;
    if (!remote || !this.bus.live) return this.loadFrom(key, load, mark, false, turn);
    const redis = this.bus.redis;
    // Redis down: the loader answers (remember writes nothing while it is down)
    if (!redis.ready) return this.loadFrom(key, load, mark, true, turn);
    return redis.reads.get(this.remoteKey(key)).then(
      (raw) => {
        if (raw === MISSING_VALUE) {
          this.leave(turn, key);
          return this.remember(key, null, mark, false);
        }
        if (raw !== null) {
          try {
            const value = this.remember(key, remote.decode(raw), mark, false);
            this.leave(turn, key);
            return value;
          } catch {
            // unreadable entry: the loader answers and overwrites it
          }
        }
        return this.loadFrom(key, load, mark, true, turn);
      },
      (err: Error) => {
        this.warn(`read failed, using the loader: ${err.message}`);
        return this.loadFrom(key, load, mark, true, turn);
      },
    );
  }

  /**
   * The loader's answer, kept (remember); `toRemote`: written to Redis too. A load of the key
   * already under way is shared: a new link's first burst of visits costs one query.
   */
  private loadFrom(
    key: string,
    load: Loader<V>,
    mark: number,
    toRemote: boolean,
    turn: Lookups<V>,
  ): Promise<V | null> {
    // a lookup that joins a running load stays in its turn's Map until the turn ends: a later
    // lookup of that turn gets the same shared answer
    const running = this.loads.get(key);
    if (running) return running;
    let loading: Promise<V | null>;
    try {
      loading = load(key);
    } catch (err) {
      loading = Promise.reject(err as Error);
    }
    const settled = loading.then(
      (value) => {
        this.loads.delete(key);
        this.leave(turn, key);
        return this.remember(key, value, mark, toRemote);
      },
      (err: unknown) => {
        this.loads.delete(key);
        this.leave(turn, key);
        throw err;
      },
    );
    this.loads.set(key, settled);
    return settled;
  }

  /** An answered lookup leaves its turn's Map, if that turn is still under way. */
  private leave(turn: Lookups<V>, key: string): void {
    if (turn === this.turn) turn.delete(key);
  }

  /** Keeps what a read found (in memory, and in Redis when it came from the loader), unless an invalidation overtook the read. */
  private remember(key: string, value: V | null, mark: number, toRemote: boolean): V | null {
    if (value === null && this.options.cacheMissing === false) return null;
    const tags = value !== null && this.options.tags ? this.options.tags(value) : NO_TAGS;
    if (!this.bus.live) return value;
    // nothing invalidated since the read began (the usual case): no list of names to check
    if (this.log.mark() !== mark && !this.log.unchangedSince(mark, [key, ...tags])) return value;
    const remote = this.options.remote;
    if (toRemote && remote) {
      this.remoteSet(
        key,
        value === null ? MISSING_VALUE : remote.encode(value),
        value === null ? remote.missingTtlSeconds : remote.ttlSeconds,
      );
    }
    if (this.local) {
      if (value === null) this.local.set(key, MISSING, { ttl: this.options.missingTtlMs });
      else {
        this.local.set(key, value);
        for (const tag of tags) {
          let keys = this.byTag.get(tag);
          if (!keys) this.byTag.set(tag, (keys = new Set()));
          keys.add(key);
        }
      }
    }
    return value;
  }

  private untag(key: string, value: V | Missing): void {
    if (value === MISSING || !this.options.tags) return;
    for (const tag of this.options.tags(value as V)) {
      const keys = this.byTag.get(tag);
      if (!keys) continue;
      keys.delete(key);
      if (!keys.size) this.byTag.delete(tag);
    }
  }

  /**
   * `<prefix>:<name>:<key>`; on a Redis Cluster `<prefix>:{<name>:<bucket>}:<key>`, one of
   * CACHE_BUCKETS hash slots by the key's hash: a turn's reads then fall into a few slots, and
   * the batched GET sends a few MGETs per primary instead of one GET per key
   * (docs/scaling.md#key-layout-and-hash-tags).
   */
  private remoteKey(key: string): string {
    return this.remotePrefixes.length === 1
      ? this.remotePrefixes[0] + key
      : this.remotePrefixes[cacheBucket(key)] + key;
  }

  private remoteSet(key: string, value: string, ttl: number): void {
    const redis = this.bus.redis;
    if (!redis.ready) return;
    redis.client
      .set(this.remoteKey(key), value, 'EX', ttl)
      .catch((err: Error) => this.warn(`write failed: ${err.message}`));
  }

  // ---- invalidating ------------------------------------------------------------------------

  private async invalidateNow(names: string[]): Promise<void> {
    this.drop(names);
    const redis = this.bus.redis;
    try {
      if (!redis.ready) throw new Error('redis is not connected');
      const keys = this.options.remote ? names.map((n) => this.remoteKey(n)) : [];
      const message = JSON.stringify({ c: this.options.name, k: names } satisfies BusMessage);
      const client = redis.client;
      if (isCluster(client)) {
        // a DEL names keys of one slot: one per slot (in parallel), then the message, which
        // every node passes on to its subscribers
        const dels: Array<Promise<number>> = [];
        for (const group of groupBySlot(keys))
          for (let i = 0; i < group.length; i += DEL_BATCH)
            dels.push(client.del(...group.slice(i, i + DEL_BATCH)));
        await Promise.all(dels);
        await client.publish(this.bus.channel, message);
      } else {
        const tx = client.multi();
        for (let i = 0; i < keys.length; i += DEL_BATCH) tx.del(...keys.slice(i, i + DEL_BATCH));
        tx.publish(this.bus.channel, message);
        const replies = await tx.exec();
        const failed = replies?.find(([err]) => err)?.[0];
        if (failed) throw failed;
      }
    } catch (err) {
      // sent when Redis is back; meanwhile no replica serves from memory (the bus is down) or
      // the others' entries run out
      for (const n of names) this.pending.add(n);
      this.warn(`invalidation deferred: ${(err as Error).message}`);
    }
  }

  private async sendPending(): Promise<void> {
    if (!this.pending.size) return;
    const names = [...this.pending];
    this.pending = new Set();
    await this.invalidateNow(names);
  }

  /** At most one warning every 10 s: these happen on the request path. */
  private warn(message: string): void {
    const now = Date.now();
    if (now - this.lastWarning < 10_000) return;
    this.lastWarning = now;
    this.logger.warn(message);
  }
}
