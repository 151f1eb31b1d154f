import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

import { storedUrl } from '@app/common';
import { AppConfig } from '@app/config';
import {
  FoundFlag,
  LINK_TARGET_SELECT,
  LinkCacheAccess,
  LinkFlags,
  LinkTargetColumns,
  linkTargets,
  LOOKUP_BATCH,
  lookupUrls,
  SafeBrowsing,
  ThreatFeeds,
  ThreatFlag,
} from '@app/links';
import { RedisService } from '@app/redis';

/** Links read per batch of a re-scan (one keyset query, then one match of all their targets). */
export const RESCAN_BATCH = 2000;
/** A worker holds a re-scan's lock this long at most (another may take over after). */
const LOCK_SECONDS = 3600;
/** How often the online lookup's re-checks (and whether a full lookup scan is due) are looked at. */
const LOOKUP_TICK_MS = 60_000;
/** Destinations re-checked per tick at most (LOOKUP_BATCH a call). */
const RECHECKS_PER_TICK = 20 * LOOKUP_BATCH;

/** What a pass did: null when another worker holds its lock (or nothing is configured). */
export interface RescanResult {
  links: number;
  flagged: number;
}

type LinkTargetRow = LinkTargetColumns & { id: number };

/** Flags of targets, by target: what a matcher answers for a batch of them. */
type Matcher = (targets: string[]) => Promise<Map<string, ThreatFlag>>;

/**
 * Re-checks the targets of existing links (every target: the URL, each targeting rule's link, the
 * expiration redirect, deep links; links of kind `link` not disabled) against the threat feeds
 * after each refresh (ThreatFeedLoader calls `scanFeeds`) and against the online lookup every
 * SAFE_BROWSING_RESCAN_MINUTES, and re-checks the destinations the lookup could not answer for at
 * creation (every minute). Links are read in keyset batches of RESCAN_BATCH; a batch's targets are
 * matched at once (ThreatFeeds.matchMany: one HMGET per feed; SafeBrowsing.lookup: its cache, then
 * 500 URLs a call), never one round trip per link. What is newly flagged is recorded (LinkFlags:
 * the row, `link.flagged` once per link) and dropped from every api replica's cache, so the link
 * answers the 451 warning page within the refresh. One pass of each kind at a time over all
 * workers (a Redis lock).
 */
@Injectable()
export class LinkRescan implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(LinkRescan.name);
  private readonly lookupEveryMs: number;
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private closed = false;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly feeds: ThreatFeeds,
    private readonly lookup: SafeBrowsing,
    private readonly flags: LinkFlags,
    private readonly cache: LinkCacheAccess,
    private readonly redis: RedisService,
    config: AppConfig,
  ) {
    this.lookupEveryMs = config.SAFE_BROWSING_RESCAN_MINUTES * 60_000;
  }

  onApplicationBootstrap(): void {
    if (!this.lookup.enabled) return;
    const tick = () => {
      if (this.running || this.closed) return;
      this.running = this.lookupTick()
        .catch((err: Error) => this.logger.warn(`online lookup re-scan: ${err.message}`))
        .finally(() => (this.running = undefined));
    };
    this.timer = setInterval(tick, LOOKUP_TICK_MS);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    await this.running;
  }

  /** Every minute: the re-checks, then a full lookup pass when one is due. */
  private async lookupTick(): Promise<void> {
    await this.recheck();
    const last = Number(
      (await this.redis.client.get(this.redis.key('rescan', 'lookup', 'at'))) ?? 0,
    );
    if (Date.now() - last >= this.lookupEveryMs) await this.scanLookup();
  }

  /** Every active link's targets against the threat feeds (after a refresh). */
  scanFeeds(): Promise<RescanResult | null> {
    if (!this.feeds.feeds.length) return Promise.resolve(null);
    return this.scan('feeds', (targets) => this.feeds.matchMany(targets));
  }

  /** Every active link's targets against the online lookup (stops at the first failed call). */
  async scanLookup(): Promise<RescanResult | null> {
    if (!this.lookup.enabled) return null;
    const result = await this.scan('lookup', (targets) => this.lookupMatch(targets));
    if (result)
      await this.redis.client.set(this.redis.key('rescan', 'lookup', 'at'), String(Date.now()));
    return result;
  }

  /**
   * The destinations the lookup could not answer for (down at creation, or imported): looked up
   * now, and the links holding a flagged one are flagged. While the lookup is still down they go
   * back to wait. Answers how many links were newly flagged.
   */
  async recheck(): Promise<number> {
    let flaggedLinks = 0;
    for (let done = 0; done < RECHECKS_PER_TICK && !this.closed; done += LOOKUP_BATCH) {
      const destinations = await this.lookup.takeRechecks(LOOKUP_BATCH);
      if (!destinations.length) break;
      let flagged: Map<string, ThreatFlag>;
      try {
        flagged = await this.lookupMatch(destinations);
      } catch (err) {
        await this.redis.client.sadd(this.lookup.recheckKey, ...destinations);
        this.logger.warn(`re-check postponed (online lookup: ${(err as Error).message})`);
        break;
      }
      if (!flagged.size) continue;
      // the links naming a flagged destination (as sent, or as stored)
      const names = new Set<string>();
      for (const d of flagged.keys()) {
        names.add(d);
        try {
          names.add(storedUrl(d));
        } catch {
          // not a URL the link columns could hold in another spelling
        }
      }
      const list = [...names];
      const rows: LinkTargetRow[] = await this.db.query(
        `SELECT l.id, ${LINK_TARGET_SELECT} FROM links l
          WHERE l.kind = 'link' AND l.disabled_at IS NULL AND (
            l.url = ANY($1::text[]) OR l.expiration_redirect = ANY($1::text[])
            OR l.deep_link->>'apple' = ANY($1::text[]) OR l.deep_link->>'google' = ANY($1::text[])
            OR EXISTS (SELECT 1 FROM jsonb_array_elements(
                 COALESCE(l.geo_targets, '[]') || COALESCE(l.device_targets, '[]')
                 || COALESCE(l.language_targets, '[]')) t WHERE t->>'link' = ANY($1::text[])))`,
        [list],
      );
      const byName = new Map<string, ThreatFlag>();
      for (const [d, flag] of flagged) {
        byName.set(d, flag);
        try {
          byName.set(storedUrl(d), flag);
        } catch {
          // as above
        }
      }
      flaggedLinks += await this.record(rows, async (targets) => {
        const out = new Map<string, ThreatFlag>();
        for (const t of targets) if (byName.has(t)) out.set(t, byName.get(t)!);
        return out;
      });
    }
    return flaggedLinks;
  }

  /** The lookup's flags of targets (a target is flagged when any URL it sends visitors to is). */
  private async lookupMatch(targets: string[]): Promise<Map<string, ThreatFlag>> {
    const urlsOf = targets.map((t) => [t, lookupUrls(t)] as const);
    const flagged = await this.lookup.lookup(urlsOf.flatMap(([, urls]) => urls));
    const out = new Map<string, ThreatFlag>();
    for (const [t, urls] of urlsOf)
      for (const u of urls) {
        const flag = flagged.get(u);
        if (flag) {
          out.set(t, flag);
          break;
        }
      }
    return out;
  }

  /** One pass over every active link, in keyset batches, under the pass's lock. */
  private async scan(kind: string, match: Matcher): Promise<RescanResult | null> {
    const lock = this.redis.key('rescan', kind, 'lock');
    const again = this.redis.key('rescan', kind, 'again');
    const token = `${process.pid}-${Date.now()}-${Math.random()}`;
    if ((await this.redis.client.set(lock, token, 'EX', LOCK_SECONDS, 'NX')) !== 'OK') {
      // a pass is under way (maybe begun before this refresh): its worker runs one more after it
      await this.redis.client.set(again, '1', 'EX', LOCK_SECONDS);
      return null;
    }
    const result: RescanResult = { links: 0, flagged: 0 };
    try {
      do await this.pass(kind, match, result);
      while (!this.closed && (await this.redis.client.del(again)) === 1);
      return result;
    } finally {
      if ((await this.redis.client.get(lock)) === token) await this.redis.client.del(lock);
    }
  }

  private async pass(kind: string, match: Matcher, result: RescanResult): Promise<void> {
    const started = Date.now();
    const before = { ...result };
    for (let after = 0; !this.closed;) {
      const rows: LinkTargetRow[] = await this.db.query(
        `SELECT l.id, ${LINK_TARGET_SELECT} FROM links l
          WHERE l.id > $1 AND l.kind = 'link' AND l.disabled_at IS NULL
          ORDER BY l.id LIMIT $2`,
        [after, RESCAN_BATCH],
      );
      if (!rows.length) break;
      after = rows[rows.length - 1].id;
      result.links += rows.length;
      result.flagged += await this.record(rows, match);
      // the worker's other jobs run between two batches
      await new Promise((resolve) => setImmediate(resolve));
    }
    this.logger.log(
      `re-scan (${kind}): ${result.links - before.links} links, ${result.flagged - before.flagged} newly flagged in ${Date.now() - started} ms`,
    );
  }

  /** Matches the rows' targets at once, records the flags found, drops the links from the caches. */
  private async record(rows: LinkTargetRow[], match: Matcher): Promise<number> {
    const targetsOf = rows.map((r) => [r.id, linkTargets(r)] as const);
    const flagged = await match([...new Set(targetsOf.flatMap(([, t]) => t))]);
    if (!flagged.size) return 0;
    const found: FoundFlag[] = [];
    for (const [linkId, targets] of targetsOf)
      for (const target of targets) {
        const flag = flagged.get(target);
        if (flag) found.push({ linkId, target, flag });
      }
    const newly = await this.flags.flag(found);
    if (newly.length) await this.cache.forgetAliases(newly.map((l) => l.alias));
    return newly.length;
  }
}
