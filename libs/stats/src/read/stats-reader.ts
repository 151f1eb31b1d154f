import { Injectable, Logger } from '@nestjs/common';
import { EntityManager } from 'typeorm';

import { AppConfig } from '@app/config';
import { ReadReplicas } from '@app/database';
import { RedisService } from '@app/redis';

import { DIM, dayToIso, StatsKeys } from '../keys';
import { LinkStatistics, LinkTotals } from '../types';
import { PartitionPipelines } from '../partition-pipelines';
import { bump, readPending } from './pending-counters';

const TOP = 10;
/** The dimensions added with cities: the same top maps in lifetime and range statistics. */
export const MORE_TOP_KEYS = {
  [DIM.city]: 'topCities',
  [DIM.region]: 'topRegions',
  [DIM.utmSource]: 'topUtmSources',
  [DIM.utmMedium]: 'topUtmMediums',
  [DIM.utmCampaign]: 'topUtmCampaigns',
  [DIM.referrerUrl]: 'topReferrerUrls',
  [DIM.deviceModel]: 'topDeviceModels',
} as const;

const DIM_KEYS: Record<
  string,
  | 'topCountries'
  | 'topReferrers'
  | 'topBrowsers'
  | 'topOs'
  | (typeof MORE_TOP_KEYS)[keyof typeof MORE_TOP_KEYS]
> = {
  [DIM.country]: 'topCountries',
  [DIM.referrer]: 'topReferrers',
  [DIM.browser]: 'topBrowsers',
  [DIM.os]: 'topOs',
  ...MORE_TOP_KEYS,
};

/** Pending (not yet folded) counters of one link, summed over its pending hash and in-flight batches. */
interface Pending {
  clicks: number;
  dims: Map<string, Map<string, number>>;
  /** days (YYYYMMDD) with visits not folded yet */
  days: Set<string>;
}

/**
 * Statistics reads: the totals folded into Postgres plus the deltas still in Redis (pending
 * hashes and claimed batches not yet applied), so a visit shows up as soon as it is recorded.
 * If Redis is down, the folded totals alone are returned. Read from a replica when there is one
 * (ReadReplicas: one snapshot for the Postgres part; the pending part counts what it has not
 * replayed yet).
 */
@Injectable()
export class StatsReader {
  private readonly logger = new Logger(StatsReader.name);
  private readonly keys: StatsKeys;

  constructor(
    private readonly redis: RedisService,
    private readonly replicas: ReadReplicas,
    config: AppConfig,
  ) {
    this.keys = new StatsKeys(redis, config.STATS_PARTITIONS);
  }

  /** The documented statistics object of one link (a QR code's: its link's). */
  forLink(linkId: number): Promise<LinkStatistics> {
    return this.replicas.read((db) => this.linkOn(db, linkId));
  }

  /** clicks / uniqueClicks of many links at once (list pages). Missing ids get zeros. */
  totals(linkIds: number[]): Promise<Map<number, LinkTotals>> {
    if (!linkIds.length) return Promise.resolve(new Map());
    return this.replicas.read((db) => this.totalsOn(db, linkIds));
  }

  private async linkOn(db: EntityManager, linkId: number): Promise<LinkStatistics> {
    const [totals, dimRows, pending] = await Promise.all([
      db.query(`SELECT clicks, uniques FROM link_stats_total WHERE link_id = $1`, [linkId]),
      db.query(
        // the month sums: each the sum of its stored days
        `SELECT dim, label, SUM(count)::bigint AS count FROM link_stats_dims_monthly WHERE link_id = $1 GROUP BY dim, label`,
        [linkId],
      ),
      this.pending(db, [linkId]).then((m) => m.get(linkId)),
    ]);
    const dims = new Map<string, Map<string, number>>();
    for (const r of dimRows as Array<{ dim: string; label: string; count: string }>) {
      bump(dims, r.dim, r.label, Number(r.count));
    }
    for (const [dim, labels] of pending?.dims ?? [])
      for (const [l, n] of labels) bump(dims, dim, l, n);

    const stats: LinkStatistics = {
      clicks: Number(totals[0]?.clicks ?? 0) + (pending?.clicks ?? 0),
      uniqueClicks:
        Number(totals[0]?.uniques ?? 0) +
        (pending
          ? ((await this.pendingUniquesOf(db, new Map([[linkId, pending]]))).get(linkId) ?? 0)
          : 0),
      topCountries: {},
      topReferrers: {},
      topBrowsers: {},
      topOs: {},
      topCities: {},
      topRegions: {},
      topUtmSources: {},
      topUtmMediums: {},
      topUtmCampaigns: {},
      topReferrerUrls: {},
      topDeviceModels: {},
      socialCount: socialCount(dims.get(DIM.social)),
    };
    for (const [dim, key] of Object.entries(DIM_KEYS)) stats[key] = top(dims.get(dim));
    return stats;
  }

  private async totalsOn(db: EntityManager, linkIds: number[]): Promise<Map<number, LinkTotals>> {
    const result = new Map<number, LinkTotals>(
      linkIds.map((id) => [id, { clicks: 0, uniqueClicks: 0 }]),
    );
    const folded = db
      .query(
        `SELECT link_id, clicks, uniques FROM link_stats_total WHERE link_id = ANY($1::int[])`,
        [linkIds],
      )
      .then((rows: Array<{ link_id: number; clicks: string; uniques: string }>) => {
        for (const r of rows)
          result.set(r.link_id, { clicks: Number(r.clicks), uniqueClicks: Number(r.uniques) });
      });
    await this.addPending(db, result, folded);
    return result;
  }

  /**
   * Adds to `totals` (link id → its folded totals, every link read present) the deltas still in
   * Redis, read as `db` sees the applied batches: for a caller that read the folded totals itself
   * (a list page's one statement). `folded`: that read, when it is still running (the pending
   * read goes beside it, as `totals` does); the deltas are added once it is done.
   */
  async addPending(
    db: EntityManager,
    totals: Map<number, LinkTotals>,
    folded: Promise<unknown> = Promise.resolve(),
  ): Promise<void> {
    const [, pending] = await Promise.all([folded, this.pending(db, [...totals.keys()])]);
    const uniques = await this.pendingUniquesOf(db, pending);
    for (const [id, p] of pending) {
      const t = totals.get(id)!;
      t.clicks += p.clicks;
      t.uniqueClicks += uniques.get(id) ?? 0;
    }
  }

  /**
   * Unique visitors not yet folded, per link: for each day with pending visits, the day's live
   * HyperLogLog count minus what Postgres already holds for that day. One pipeline of the counts
   * and one query of the stored days for all the links (a page of links, not a round trip each).
   * Nothing when Redis or the query fails (each link's zero).
   */
  private async pendingUniquesOf(
    db: EntityManager,
    pending: Map<number, Pending>,
  ): Promise<Map<number, number>> {
    const out = new Map<number, number>();
    const linkIds: number[] = [];
    const days: string[] = [];
    for (const [id, p] of pending)
      for (const day of p.days) {
        linkIds.push(id);
        days.push(day);
      }
    if (!days.length || !this.redis.ready) return out;
    try {
      const pipelines = new PartitionPipelines(this.redis.client, this.keys);
      linkIds.forEach((id, i) => {
        const sketch = this.keys.visitors(id, days[i]);
        pipelines.add(this.keys.partitionOf(id), (p) => p.pfcount(sketch));
      });
      const [counts, stored] = await Promise.all([
        pipelines.exec(),
        db.query(
          `SELECT link_id, to_char(day, 'YYYYMMDD') AS day, uniques FROM link_stats_daily
            WHERE (link_id, day) IN (SELECT * FROM unnest($1::int[], $2::date[]))`,
          [linkIds, days.map(dayToIso)],
        ),
      ]);
      const folded = new Map(
        (stored as Array<{ link_id: number; day: string; uniques: string }>).map((r) => [
          `${r.link_id}|${r.day}`,
          Number(r.uniques),
        ]),
      );
      counts.forEach(([err, count], i) => {
        if (err) throw err;
        const id = linkIds[i];
        const fresh = Math.max(0, Number(count) - (folded.get(`${id}|${days[i]}`) ?? 0));
        out.set(id, (out.get(id) ?? 0) + fresh);
      });
    } catch {
      return new Map();
    }
    return out;
  }

  /** Pending deltas per link: its pending hash plus claimed batches not yet applied in Postgres. */
  private async pending(db: EntityManager, linkIds: number[]): Promise<Map<number, Pending>> {
    const out = new Map<number, Pending>();
    if (!this.redis.ready) return out;
    try {
      for (const [id, days] of await readPending(this.redis, db, this.keys, linkIds)) {
        const p: Pending = { clicks: 0, dims: new Map(), days: new Set(days.keys()) };
        for (const day of days.values()) {
          p.clicks += day.clicks;
          for (const [dim, labels] of day.dims)
            for (const [label, n] of labels) bump(p.dims, dim, label, n);
        }
        out.set(id, p);
      }
    } catch (err) {
      this.logger.warn(`pending statistics unavailable: ${(err as Error).message}`);
    }
    return out;
  }
}

/** Visits referred by each counted social network (0 for none). */
export function socialCount(
  social: Map<string, number> | undefined,
): LinkStatistics['socialCount'] {
  return {
    network01: social?.get('network01') ?? 0,
    network02: social?.get('network02') ?? 0,
    network03: social?.get('network03') ?? 0,
  };
}

/** At most 10 entries, largest first (ties by label), counts as strings. */
export function top(labels: Map<string, number> | undefined): Record<string, string> {
  if (!labels) return {};
  return Object.fromEntries(
    [...labels.entries()]
      .filter(([, n]) => n > 0)
      .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
      .slice(0, TOP)
      .map(([l, n]) => [l, String(n)]),
  );
}
