import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type Redis from 'ioredis';
import { LRUCache } from 'lru-cache';
import { DataSource } from 'typeorm';

import { AppConfig } from '@app/config';
import { RedisService } from '@app/redis';

import {
  CachedLink,
  fromRow,
  RESOLVE_LINK_SQL,
  ResolvedHost,
  ResolvedLink,
  ResolveLinkRow,
  toCached,
} from './resolved-link';

/** Seconds Redis keeps a resolved link / host, and a known-missing one. */
const REDIS_TTL = 3600;
const REDIS_MISSING_TTL = 30;
/** Milliseconds the in-process cache keeps a known-missing alias or host. */
const LRU_MISSING_TTL = 5000;
/** A second invalidation this long after the first catches a replica that re-filled Redis from a read made before the change committed. */
const REPEAT_FORGET_MS = 2000;
const MISSING_VALUE = '-';

/** Cache value for "no such alias / host" (lru-cache cannot hold null). */
const MISSING = Object.freeze({ missing: true as const });
type Missing = typeof MISSING;

/** What a link's cached answer depends on, for `affectedBy` / `forgetLinksUsing`. */
export type LinkReference = 'domain' | 'pixel' | 'splash' | 'overlay' | 'user';

const ALIASES_USING: Record<LinkReference, string> = {
  domain: 'SELECT alias FROM links WHERE domain_id = $1',
  pixel:
    'SELECT l.alias FROM links l JOIN link_pixels lp ON lp.link_id = l.id WHERE lp.pixel_id = $1',
  splash: 'SELECT alias FROM links WHERE splash_id = $1',
  overlay: 'SELECT alias FROM links WHERE overlay_id = $1',
  user: 'SELECT alias FROM links WHERE user_id = $1',
};
const HOSTS_OF: Partial<Record<LinkReference, string>> = {
  domain: 'SELECT host FROM domains WHERE id = $1',
  user: 'SELECT host FROM domains WHERE user_id = $1',
};

/** Aliases and hosts whose cached answers must go. */
export interface CacheTargets {
  aliases?: string[];
  hosts?: string[];
}

/** Keys per DEL command when invalidating many aliases at once. */
const DEL_BATCH = 500;

interface Invalidation {
  a?: string[];
  h?: string[];
}

/**
 * The short-link read path: in-process LRU → Redis (JSON, 1 h) → Postgres, for aliases and for
 * branded-domain hosts, negative answers included (briefly). Changes are invalidated on every
 * replica: the writer deletes the Redis keys and publishes the aliases / hosts on a channel;
 * every process drops them from its LRU (and forgets everything after its subscriber reconnects,
 * since messages may have been missed). When Redis is down, lookups go to Postgres (fail open).
 */
@Injectable()
export class LinkCache implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(LinkCache.name);
  private readonly links: LRUCache<string, CachedLink | Missing> | null;
  private readonly hosts: LRUCache<string, ResolvedHost | Missing> | null;
  private readonly linkLoads = new Map<string, Promise<CachedLink | null>>();
  private readonly hostLoads = new Map<string, Promise<ResolvedHost | null>>();
  /** Aliases / hosts invalidated while their load was in flight: that load's answer is not cached. */
  private readonly staleLoads = new Set<string>();
  private readonly channel: string;
  private readonly timers = new Set<NodeJS.Timeout>();
  private pending: Invalidation = {};
  private subscriber?: Redis;
  private lastWarning = 0;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly redis: RedisService,
    config: AppConfig,
  ) {
    const size = config.LINK_CACHE_SIZE;
    const ttl = config.LINK_CACHE_SECONDS * 1000;
    this.links = size > 0 ? new LRUCache({ max: size, ttl }) : null;
    this.hosts = size > 0 ? new LRUCache({ max: Math.min(size, 10_000), ttl }) : null;
    this.channel = redis.key('cache', 'invalidate');
  }

  onModuleInit(): void {
    const sub = this.redis.duplicate();
    this.subscriber = sub;
    let connectedBefore = false;
    sub.on('ready', () => {
      // invalidations published while this process was disconnected are lost: start afresh
      if (connectedBefore) this.clearLocal();
      connectedBefore = true;
      // (re)subscribing is idempotent; it also covers a first subscribe that failed
      sub
        .subscribe(this.channel)
        .catch((err: Error) => this.warn(`cache invalidation subscribe failed: ${err.message}`));
    });
    sub.on('message', (channel: string, message: string) => {
      if (channel === this.channel) this.dropLocal(message);
    });
    this.redis.client.on('ready', () => void this.flushPending());
  }

  onModuleDestroy(): void {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }

  /** From the in-process cache only: the link, null when known missing, undefined when not cached. */
  peek(alias: string): CachedLink | null | undefined {
    const hit = this.links?.get(alias);
    if (hit === undefined) return undefined;
    return hit === MISSING ? null : (hit as CachedLink);
  }

  /** Redis, then Postgres (concurrent loads of one alias share one query). Null when no such alias. */
  resolve(alias: string): Promise<CachedLink | null> {
    const cached = this.peek(alias);
    if (cached !== undefined) return Promise.resolve(cached);
    let load = this.linkLoads.get(alias);
    if (!load) {
      load = this.loadLink(alias);
      this.linkLoads.set(alias, load);
      const done = () => {
        this.linkLoads.delete(alias);
        if (this.staleLoads.size) this.staleLoads.delete(`a:${alias}`);
      };
      load.then(done, done);
    }
    return load;
  }

  /** From the in-process cache only: the branded domain of a host, null when none, undefined when not cached. */
  peekHost(host: string): ResolvedHost | null | undefined {
    const hit = this.hosts?.get(host);
    if (hit === undefined) return undefined;
    return hit === MISSING ? null : (hit as ResolvedHost);
  }

  resolveHost(host: string): Promise<ResolvedHost | null> {
    const cached = this.peekHost(host);
    if (cached !== undefined) return Promise.resolve(cached);
    let load = this.hostLoads.get(host);
    if (!load) {
      load = this.loadHost(host).finally(() => {
        this.hostLoads.delete(host);
        this.staleLoads.delete(`h:${host}`);
      });
      this.hostLoads.set(host, load);
    }
    return load;
  }

  /**
   * Invalidates aliases and / or hosts on every replica. Call it after the change committed (a
   * new alias too: its "missing" answer may be cached). It runs again two seconds later, which
   * covers a replica that re-filled Redis from a read made just before the commit.
   */
  async forget(target: CacheTargets): Promise<void> {
    const inv: Invalidation = {
      a: [...new Set(target.aliases ?? [])],
      h: [...new Set(target.hosts ?? [])],
    };
    if (!inv.a?.length && !inv.h?.length) return;
    await this.forgetNow(inv);
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      void this.forgetNow(inv);
    }, REPEAT_FORGET_MS);
    timer.unref();
    this.timers.add(timer);
  }

  /**
   * The cached answers that depend on a branded domain (its host and its links), a pixel, splash
   * page or overlay (the links using it), or a user (their links and domains). For a deletion,
   * take this before deleting (the rows are gone after) and `forget` it once deleted.
   */
  async affectedBy(reference: LinkReference, id: number): Promise<CacheTargets> {
    const hostSql = HOSTS_OF[reference];
    const [aliases, hosts] = await Promise.all([
      this.db.query(ALIASES_USING[reference], [id]) as Promise<Array<{ alias: string }>>,
      hostSql
        ? (this.db.query(hostSql, [id]) as Promise<Array<{ host: string }>>)
        : Promise.resolve([]),
    ]);
    return { aliases: aliases.map((r) => r.alias), hosts: hosts.map((r) => r.host) };
  }

  /** `forget(affectedBy(reference, id))`, after a change that keeps the row. */
  async forgetLinksUsing(reference: LinkReference, id: number): Promise<void> {
    await this.forget(await this.affectedBy(reference, id));
  }

  private loadLink(alias: string): Promise<CachedLink | null> {
    const key = this.redis.key('link', alias);
    return this.redisGet(key).then((fromRedis) => {
      if (fromRedis === MISSING_VALUE) return this.remember(alias, null);
      if (fromRedis) {
        try {
          return this.remember(alias, toCached(JSON.parse(fromRedis) as ResolvedLink));
        } catch {
          // unreadable entry: Postgres answers and overwrites it
        }
      }
      return this.loadLinkFromDb(alias, key);
    });
  }

  private async loadLinkFromDb(alias: string, key: string): Promise<CachedLink | null> {
    const rows: ResolveLinkRow[] = await this.db.query(RESOLVE_LINK_SQL, [alias]);
    const link = rows.length ? fromRow(rows[0]) : null;
    const fresh = !this.staleLoads.has(`a:${alias}`);
    if (fresh)
      this.redisSet(
        key,
        link ? JSON.stringify(link) : MISSING_VALUE,
        link ? REDIS_TTL : REDIS_MISSING_TTL,
      );
    const cached = link ? toCached(link) : null;
    return fresh ? this.remember(alias, cached) : cached;
  }

  private remember(alias: string, link: CachedLink | null): CachedLink | null {
    if (this.links && !(this.staleLoads.size && this.staleLoads.has(`a:${alias}`))) {
      if (link) this.links.set(alias, link);
      else this.links.set(alias, MISSING, { ttl: LRU_MISSING_TTL });
    }
    return link;
  }

  private async loadHost(host: string): Promise<ResolvedHost | null> {
    const key = this.redis.key('host', host);
    const fromRedis = await this.redisGet(key);
    let resolved: ResolvedHost | null | undefined;
    if (fromRedis === MISSING_VALUE) resolved = null;
    else if (fromRedis) {
      try {
        resolved = JSON.parse(fromRedis) as ResolvedHost;
      } catch {
        resolved = undefined;
      }
    }
    if (resolved === undefined) {
      const rows: Array<{ id: number; redirect_root: string; redirect_404: string }> =
        await this.db.query('SELECT id, redirect_root, redirect_404 FROM domains WHERE host = $1', [
          host,
        ]);
      resolved = rows.length
        ? { id: rows[0].id, redirectRoot: rows[0].redirect_root, redirect404: rows[0].redirect_404 }
        : null;
      if (!this.staleLoads.has(`h:${host}`)) {
        this.redisSet(
          key,
          resolved ? JSON.stringify(resolved) : MISSING_VALUE,
          resolved ? REDIS_TTL : REDIS_MISSING_TTL,
        );
      }
    }
    if (this.hosts && !this.staleLoads.has(`h:${host}`)) {
      if (resolved) this.hosts.set(host, resolved);
      else this.hosts.set(host, MISSING, { ttl: LRU_MISSING_TTL });
    }
    return resolved;
  }

  /** A Redis read that never fails: null (go to Postgres) when Redis is down or errs. */
  private redisGet(key: string): Promise<string | null> {
    if (!this.redis.ready) return Promise.resolve(null);
    return this.redis.reads.get(key).catch((err: Error) => {
      this.warn(`cache read failed, using Postgres: ${err.message}`);
      return null;
    });
  }

  private redisSet(key: string, value: string, ttl: number): void {
    if (!this.redis.ready) return;
    this.redis.client
      .set(key, value, 'EX', ttl)
      .catch((err: Error) => this.warn(`cache write failed: ${err.message}`));
  }

  private async forgetNow(inv: Invalidation): Promise<void> {
    this.dropAll(inv);
    const keys = [
      ...(inv.a ?? []).map((a) => this.redis.key('link', a)),
      ...(inv.h ?? []).map((h) => this.redis.key('host', h)),
    ];
    try {
      if (!this.redis.ready) throw new Error('redis is not connected');
      const tx = this.redis.client.multi();
      for (let i = 0; i < keys.length; i += DEL_BATCH) tx.del(...keys.slice(i, i + DEL_BATCH));
      await tx.publish(this.channel, JSON.stringify(inv)).exec();
    } catch (err) {
      // retried when Redis is back; other replicas' LRU entries expire within LINK_CACHE_SECONDS
      this.pending = {
        a: [...(this.pending.a ?? []), ...(inv.a ?? [])],
        h: [...(this.pending.h ?? []), ...(inv.h ?? [])],
      };
      this.warn(`cache invalidation deferred: ${(err as Error).message}`);
    }
  }

  private async flushPending(): Promise<void> {
    const inv = this.pending;
    if (!inv.a?.length && !inv.h?.length) return;
    this.pending = {};
    await this.forgetNow({ a: [...new Set(inv.a)], h: [...new Set(inv.h)] });
  }

  private dropLocal(message: string): void {
    try {
      this.dropAll(JSON.parse(message) as Invalidation);
    } catch {
      this.clearLocal();
    }
  }

  private dropAll(inv: Invalidation): void {
    for (const a of inv.a ?? []) {
      this.links?.delete(a);
      if (this.linkLoads.has(a)) this.staleLoads.add(`a:${a}`);
    }
    for (const h of inv.h ?? []) {
      this.hosts?.delete(h);
      if (this.hostLoads.has(h)) this.staleLoads.add(`h:${h}`);
    }
  }

  private clearLocal(): void {
    this.links?.clear();
    this.hosts?.clear();
  }

  /** Warnings of the hot path, at most one every 10 s. */
  private warn(message: string): void {
    const now = Date.now();
    if (now - this.lastWarning < 10_000) return;
    this.lastWarning = now;
    this.logger.warn(message);
  }
}
