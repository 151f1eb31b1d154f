import { Injectable, OnModuleDestroy } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

import { UserDeletedEvent } from '@app/common';
import { AppConfig } from '@app/config';
import { prepared, queryPrepared } from '@app/database';
import {
  CachedLink,
  compactLink,
  fromRow,
  LinkCacheAccess,
  RESOLVE_LINK_SQL,
  ResolvedHost,
  ResolvedLink,
  ResolveLinkRow,
  toCached,
  toHost,
} from '@app/links';
import { CacheBus, SharedCache } from '@app/redis';

/** Seconds Redis keeps a resolved link / host, and a known-missing one. */
const REDIS_TTL = 3600;
const REDIS_MISSING_TTL = 30;
/** Milliseconds the in-process cache keeps a known-missing alias or host. */
const LRU_MISSING_TTL = 5000;

/**
 * What a link's cached answer depends on, for `affectedBy` / `forgetLinksUsing`; `link`: the bio
 * pages showing a short link (its status decides whether they show it).
 */
export type LinkReference = 'domain' | 'pixel' | 'splash' | 'overlay' | 'link';

const ALIASES_USING: Record<LinkReference, string> = {
  domain: 'SELECT alias FROM links WHERE domain_id = $1',
  pixel:
    'SELECT l.alias FROM links l JOIN link_pixels lp ON lp.link_id = l.id WHERE lp.pixel_id = $1',
  splash: 'SELECT alias FROM links WHERE splash_id = $1',
  overlay: 'SELECT alias FROM links WHERE overlay_id = $1',
  link: `SELECT l.alias FROM bio_pages b JOIN links l ON l.id = b.link_id
          WHERE b.links @> jsonb_build_array(jsonb_build_object('link', $1::int))`,
};
/**
 * A cache miss's reads, as named prepared statements: RESOLVE_LINK_SQL is long (every field of the
 * read model, its joins and subqueries), and parsing and planning it again for every cold alias
 * cost Postgres several times what running it does.
 */
const RESOLVE_LINK = prepared('link_cache_link', RESOLVE_LINK_SQL);
const RESOLVE_HOST = prepared(
  'link_cache_host',
  'SELECT id, redirect_root, redirect_404, verified_at IS NOT NULL AS verified FROM domains WHERE host = $1',
);

const HOSTS_OF: Partial<Record<LinkReference, string>> = {
  domain: 'SELECT host FROM domains WHERE id = $1',
};

/** Aliases and hosts whose cached answers must go. */
export interface CacheTargets {
  aliases?: string[];
  hosts?: string[];
}

/**
 * A resolved link as Redis holds it: the read model's fields without those at their unset value
 * (null, false, []) and without the prebuilt ones (compactLink); toCached gives them back. A
 * plain link is ~125 bytes instead of ~450: every cold redirect reads, parses and drops it.
 */
function encodeLink(link: CachedLink): string {
  return JSON.stringify(compactLink(link));
}

/**
 * The short-link read path, for aliases and branded-domain hosts: in-process LRU → Redis (JSON,
 * 1 h) → Postgres, negative answers included (briefly), consistent across replicas by the rules
 * of SharedCache (libs/redis). Features that change what a link resolves to call `forget` (or
 * `forgetLinksUsing`) after their change commits.
 */
@Injectable()
export class LinkCache implements OnModuleDestroy, LinkCacheAccess {
  private readonly links: SharedCache<CachedLink>;
  private readonly hosts: SharedCache<ResolvedHost>;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    bus: CacheBus,
    config: AppConfig,
  ) {
    const max = config.LINK_CACHE_SIZE;
    const ttlMs = config.LINK_CACHE_SECONDS * 1000;
    this.links = bus.cache<CachedLink>({
      name: 'link',
      max,
      ttlMs,
      missingTtlMs: LRU_MISSING_TTL,
      remote: {
        ttlSeconds: REDIS_TTL,
        missingTtlSeconds: REDIS_MISSING_TTL,
        encode: encodeLink,
        decode: (raw) => toCached(JSON.parse(raw) as ResolvedLink),
      },
    });
    this.hosts = bus.cache<ResolvedHost>({
      name: 'host',
      max: Math.min(max, 10_000),
      ttlMs,
      missingTtlMs: LRU_MISSING_TTL,
      remote: {
        ttlSeconds: REDIS_TTL,
        missingTtlSeconds: REDIS_MISSING_TTL,
        encode: (host) => JSON.stringify(host),
        decode: (raw) => toHost(JSON.parse(raw) as ResolvedHost),
      },
    });
  }

  onModuleDestroy(): void {
    this.links.close();
    this.hosts.close();
  }

  /** From memory only: the link, null when known missing, undefined when not held. */
  peek(alias: string): CachedLink | null | undefined {
    return this.links.peek(alias);
  }

  /** Memory, Redis, then Postgres (concurrent loads of one alias share one query). Null when no such alias. */
  resolve(alias: string): Promise<CachedLink | null> {
    return this.links.get(alias, this.loadLink);
  }

  /** From memory only: the branded domain of a host, null when none, undefined when not held. */
  peekHost(host: string): ResolvedHost | null | undefined {
    return this.hosts.peek(host);
  }

  resolveHost(host: string): Promise<ResolvedHost | null> {
    return this.hosts.get(host, this.loadHost);
  }

  async isBrandedHost(host: string): Promise<boolean> {
    return (await this.resolveHost(host)) !== null;
  }

  forgetAliases(aliases: string[]): Promise<void> {
    return this.forget({ aliases });
  }

  /** Invalidates aliases and / or hosts on every replica. Call it after the change committed. */
  async forget(target: CacheTargets): Promise<void> {
    await Promise.all([
      this.links.invalidate(target.aliases ?? []),
      this.hosts.invalidate(target.hosts ?? []),
    ]);
  }

  /**
   * The cached answers that depend on a branded domain (its host and its links), a pixel, splash
   * page or overlay (the links using it). For a deletion,
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

  /** A deleted user's links and branded domains stop answering on every replica. */
  @OnEvent(UserDeletedEvent.event, { promisify: true })
  async onUserDeleted(event: UserDeletedEvent): Promise<void> {
    await this.forget({ aliases: event.codes.map((c) => c.alias), hosts: event.hosts });
  }

  private readonly loadLink = async (alias: string): Promise<CachedLink | null> => {
    const rows = await queryPrepared<ResolveLinkRow>(this.db, RESOLVE_LINK, [alias]);
    return rows.length ? toCached(fromRow(rows[0])) : null;
  };

  private readonly loadHost = async (host: string): Promise<ResolvedHost | null> => {
    const rows = await queryPrepared<{
      id: number;
      redirect_root: string;
      redirect_404: string;
      verified: boolean;
    }>(this.db, RESOLVE_HOST, [host]);
    if (!rows.length) return null;
    const [r] = rows;
    return toHost({
      id: r.id,
      redirectRoot: r.redirect_root,
      redirect404: r.redirect_404,
      verified: r.verified,
    });
  };
}
