import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

import { RedisService } from '@app/redis';

import { countRegisters, emptyRegisters, mergeHll, mergeRegisters } from '../hll';
import { DIM, dayToIso, StatsKeys } from '../keys';
import { AccountRangeStatistics, RangeStatistics, SeriesPoint } from '../types';
import { bump, PendingCounters, readPending } from './pending-counters';
import { socialCount, top } from './stats-reader';
import { dayNumber, dimensionPlan, fullMonths, Interval, isoDay, periods } from './stats-range';

const TOP_KEYS = {
  [DIM.country]: 'topCountries',
  [DIM.referrer]: 'topReferrers',
  [DIM.browser]: 'topBrowsers',
  [DIM.os]: 'topOs',
  [DIM.device]: 'topDevices',
  [DIM.language]: 'topLanguages',
} as const;

/** The days to read: `from`..`to` (`YYYY-MM-DD`, inclusive) and the series' interval. */
export interface RangeRequest {
  from: string;
  to: string;
  interval: Interval;
}

/** Everything known about one day of the range, over the links read. */
interface DayData {
  clicks: number;
  /** stored HyperLogLog sketches of the day, as fetched (not those a month sketch stands for) */
  sketches: Buffer[];
  /** Redis's live sketches of the day, for links with visits not folded yet */
  live: Buffer[];
  /** stored sketches of the day (fetched or not) */
  stored: number;
  /** the stored count of the day when it has exactly one stored sketch */
  single: number | null;
  /** daily counts of days folded before sketches were kept (added, as they cannot be merged) */
  legacy: number;
}

interface Scope {
  /** SQL condition on `d.link_id` with `$1` */
  where: string;
  /** one link (month sketches are read for one link only) */
  single: boolean;
  param: number;
  linkIds: number[];
}

/**
 * Statistics over a range of days: folded rows of `link_stats_daily` (clicks, sketches) and
 * `link_stats_dims` for those days, plus the deltas still in Redis for the days they fall on,
 * and for those days Redis's live HyperLogLog. Unique visitors of a period or of the range are
 * counted on the union of its days' sketches (merged here, as PFMERGE would), never summed.
 */
@Injectable()
export class StatsRangeReader {
  private readonly logger = new Logger(StatsRangeReader.name);
  private readonly keys: StatsKeys;

  constructor(
    private readonly redis: RedisService,
    @InjectDataSource() private readonly db: DataSource,
  ) {
    this.keys = new StatsKeys(redis);
  }

  /** One link (a QR code's: its link's) over the range. */
  async forLink(linkId: number, range: RangeRequest): Promise<RangeStatistics> {
    const { stats } = await this.read(
      { where: 'd.link_id = $1', single: true, param: linkId, linkIds: [linkId] },
      range,
    );
    return stats;
  }

  /** Every short code of an account (links, QR codes, bio pages) over the range. */
  async forUser(userId: number, range: RangeRequest): Promise<AccountRangeStatistics> {
    const links: Array<{ id: number }> = await this.db.query(
      `SELECT id FROM links WHERE user_id = $1`,
      [userId],
    );
    const { stats, linkClicks } = await this.read(
      {
        where: 'd.link_id IN (SELECT id FROM links WHERE user_id = $1)',
        single: false,
        param: userId,
        linkIds: links.map((l) => l.id),
      },
      range,
    );
    return { ...stats, linkClicks };
  }

  private async read(
    scope: Scope,
    { from, to, interval }: RangeRequest,
  ): Promise<{ stats: RangeStatistics; linkClicks: Map<number, number> }> {
    const linkClicks = new Map<number, number>();
    const dims = new Map<string, Map<string, number>>();
    const days = new Map<string, DayData>();
    const dayOf = (day: string) => {
      let d = days.get(day);
      if (!d)
        days.set(
          day,
          (d = { clicks: 0, sketches: [], live: [], stored: 0, single: null, legacy: 0 }),
        );
      return d;
    };
    // Calendar months wholly inside the range (one link; not by week): their stored month sketch
    // stands for their days in unions, so those days' sketches are not fetched (except the last
    // few days', which may have visits not folded yet).
    const full = scope.single && interval !== 'week' ? fullMonths(from, to) : [];
    const fullSet = new Set(full);
    const monthSketches = new Map<string, Buffer>();
    if (dayNumber(from) <= dayNumber(to)) {
      const params = [scope.param, from, to];
      const [daily, dimRows, months, pending] = await Promise.all([
        this.db.query(
          `SELECT d.link_id, to_char(d.day, 'YYYY-MM-DD') AS day, d.clicks, d.uniques,
                  d.sketch IS NOT NULL AS has_sketch,
                  CASE WHEN date_trunc('month', d.day)::date = ANY($4::date[])
                        AND d.day < (now() AT TIME ZONE 'UTC')::date - 3
                       THEN NULL ELSE d.sketch END AS sketch
             FROM link_stats_daily d WHERE ${scope.where} AND d.day BETWEEN $2 AND $3`,
          [...params, full.map((m) => `${m}-01`)],
        ) as Promise<
          Array<{
            link_id: number;
            day: string;
            clicks: string;
            uniques: string;
            has_sketch: boolean;
            sketch: Buffer | null;
          }>
        >,
        this.dimensions(scope, from, to),
        full.length
          ? (this.db.query(
              `SELECT to_char(d.month, 'YYYY-MM') AS month, d.sketch
                 FROM link_stats_monthly d WHERE ${scope.where} AND d.month = ANY($2::date[])`,
              [scope.param, full.map((m) => `${m}-01`)],
            ) as Promise<Array<{ month: string; sketch: Buffer }>>)
          : Promise.resolve([]),
        this.pendingIn(scope.linkIds, from, to),
      ]);
      for (const r of daily) {
        const d = dayOf(r.day);
        const clicks = Number(r.clicks);
        d.clicks += clicks;
        linkClicks.set(r.link_id, (linkClicks.get(r.link_id) ?? 0) + clicks);
        if (r.has_sketch) {
          d.stored += 1;
          d.single = d.stored === 1 ? Number(r.uniques) : null;
          if (r.sketch) d.sketches.push(r.sketch);
        } else d.legacy += Number(r.uniques);
      }
      for (const r of months) monthSketches.set(r.month, r.sketch);
      for (const r of dimRows) bump(dims, r.dim, r.label, Number(r.count));
      await this.addPending(pending, dayOf, dims, linkClicks);
    }

    const total = emptyRegisters();
    let merged = false;
    let legacy = 0;
    let clicks = 0;
    const unionInto = (registers: Uint8Array, blobs: Iterable<Buffer>) => {
      let any = false;
      for (const blob of blobs) any = mergeHll(registers, blob) || any;
      return any;
    };
    const series: SeriesPoint[] = periods(from, to, interval).map((period) => {
      const point: SeriesPoint = { date: period.date, clicks: 0, uniqueClicks: 0 };
      const inPeriod = period.days.map((day) => days.get(day)).filter((d): d is DayData => !!d);
      const periodLegacy = inPeriod.reduce((n, d) => n + d.legacy, 0);
      point.clicks = inPeriod.reduce((n, d) => n + d.clicks, 0);
      const live = inPeriod.flatMap((d) => d.live);
      const month = period.date.slice(0, 7);
      const one = inPeriod.length === 1 ? inPeriod[0] : undefined;
      if (interval === 'month' && fullSet.has(month)) {
        // a whole month: its month sketch, and the live sketches of its days not yet folded
        const registers = emptyRegisters();
        const sketch = monthSketches.get(month);
        const any = unionInto(registers, sketch ? [sketch, ...live] : live);
        point.uniqueClicks = (any ? countRegisters(registers) : 0) + periodLegacy;
        if (any) {
          mergeRegisters(total, registers);
          merged = true;
        }
      } else if (one && one.stored === 1 && one.single !== null && !live.length) {
        // one stored sketch: its count is stored with it (a whole month's day: its month's
        // sketch joins the total below)
        point.uniqueClicks = one.single + periodLegacy;
        if (one.sketches.length) merged = mergeHll(total, one.sketches[0]) || merged;
      } else {
        const registers = emptyRegisters();
        const any = unionInto(registers, [...inPeriod.flatMap((d) => d.sketches), ...live]);
        point.uniqueClicks = (any ? countRegisters(registers) : 0) + periodLegacy;
        if (any) {
          mergeRegisters(total, registers);
          merged = true;
        }
      }
      legacy += periodLegacy;
      clicks += point.clicks;
      return point;
    });
    // whole months read by day: their month sketches stand for their days' in the total
    if (interval !== 'month')
      for (const sketch of monthSketches.values()) merged = mergeHll(total, sketch) || merged;

    const stats: RangeStatistics = {
      clicks,
      uniqueClicks: (merged ? countRegisters(total) : 0) + legacy,
      series,
      topCountries: {},
      topReferrers: {},
      topBrowsers: {},
      topOs: {},
      topDevices: {},
      topLanguages: {},
      socialCount: socialCount(dims.get(DIM.social)),
    };
    for (const [dim, key] of Object.entries(TOP_KEYS)) stats[key] = top(dims.get(dim));
    return { stats, linkClicks };
  }

  /**
   * Folded dimension counts of the range: whole months from their sums (link_stats_dims_monthly)
   * and the other days from link_stats_dims, a month's days outside the range subtracted where
   * that reads fewer rows (`dimensionPlan`).
   */
  private dimensions(
    scope: Scope,
    from: string,
    to: string,
  ): Promise<Array<{ dim: string; label: string; count: string }>> {
    const plan = dimensionPlan(from, to, isoDay(Date.now()));
    const params: unknown[] = [scope.param];
    const parts: string[] = [];
    if (plan.months.length) {
      params.push(plan.months);
      parts.push(
        `SELECT d.dim, d.label, d.count AS n FROM link_stats_dims_monthly d
          WHERE ${scope.where} AND d.month = ANY($${params.length}::date[])`,
      );
    }
    for (const [spans, sign] of [
      [plan.add, ''],
      [plan.subtract, '-'],
    ] as const)
      for (const [first, last] of spans) {
        params.push(first, last);
        parts.push(
          `SELECT d.dim, d.label, ${sign}d.count AS n FROM link_stats_dims d
            WHERE ${scope.where} AND d.day BETWEEN $${params.length - 1} AND $${params.length}`,
        );
      }
    if (!parts.length) return Promise.resolve([]);
    return this.db.query(
      `SELECT dim, label, SUM(n)::bigint AS count FROM (${parts.join(' UNION ALL ')}) x
        GROUP BY dim, label HAVING SUM(n) <> 0`,
      params,
    );
  }

  /** Pending deltas of the links on days of the range (none when Redis is unreachable). */
  private async pendingIn(linkIds: number[], from: string, to: string): Promise<PendingCounters> {
    if (!this.redis.ready) return new Map();
    try {
      const pending = await readPending(this.redis, this.db, this.keys, linkIds);
      const [first, last] = [dayNumber(from), dayNumber(to)];
      for (const days of pending.values())
        for (const day of days.keys()) {
          const n = dayNumber(dayToIso(day));
          if (!(n >= first && n <= last)) days.delete(day);
        }
      return pending;
    } catch (err) {
      this.logger.warn(`pending statistics unavailable: ${(err as Error).message}`);
      return new Map();
    }
  }

  /**
   * Adds the pending deltas to the days, dimensions and links, and the live HyperLogLog of each
   * (link, day) with pending visits to that day's sketches (it holds the stored one's visitors
   * and the new ones).
   */
  private async addPending(
    pending: PendingCounters,
    dayOf: (day: string) => DayData,
    dims: Map<string, Map<string, number>>,
    linkClicks: Map<number, number>,
  ): Promise<void> {
    const live: Array<[DayData, number, string]> = [];
    for (const [linkId, days] of pending)
      for (const [day, p] of days) {
        const d = dayOf(dayToIso(day));
        d.clicks += p.clicks;
        linkClicks.set(linkId, (linkClicks.get(linkId) ?? 0) + p.clicks);
        for (const [dim, labels] of p.dims)
          for (const [label, n] of labels) bump(dims, dim, label, n);
        live.push([d, linkId, day]);
      }
    if (!live.length) return;
    try {
      const pipeline = this.redis.client.pipeline();
      for (const [, linkId, day] of live) pipeline.getBuffer(this.keys.visitors(linkId, day));
      ((await pipeline.exec()) ?? []).forEach(([err, blob], i) => {
        if (err || !blob) return;
        live[i][0].live.push(blob as Buffer);
      });
    } catch (err) {
      this.logger.warn(`live visitor sketches unavailable: ${(err as Error).message}`);
    }
  }
}
