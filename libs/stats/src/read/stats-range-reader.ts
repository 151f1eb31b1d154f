import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';

import { AppConfig } from '@app/config';
import { ReadReplicas } from '@app/database';
import { RedisService } from '@app/redis';

import { countRegisters, emptyRegisters, mergeHll, mergeRegisters } from '../hll';
import { DIM, dayToIso, StatsKeys } from '../keys';
import { PartitionPipelines } from '../partition-pipelines';
import { AccountRangeStatistics, RangeStatistics, SeriesPoint } from '../types';
import { bump, PendingCounters, readPending } from './pending-counters';
import { MORE_TOP_KEYS, socialCount, top } from './stats-reader';
import {
  addDays,
  dayNumber,
  dimensionPlan,
  fullMonths,
  hoursOf,
  Interval,
  isoDay,
  periods,
} from './stats-range';

const TOP_KEYS = {
  [DIM.country]: 'topCountries',
  [DIM.referrer]: 'topReferrers',
  [DIM.browser]: 'topBrowsers',
  [DIM.os]: 'topOs',
  [DIM.device]: 'topDevices',
  [DIM.language]: 'topLanguages',
  ...MORE_TOP_KEYS,
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

/** A folded row of link_stats_daily, as the day part reads it. */
interface DayRow {
  link_id: number;
  day: string;
  clicks: string;
  uniques: string;
  has_sketch: boolean;
  sketch: Buffer | null;
}

/** What the range's parts add up: per day, per dimension, per link. */
class RangeTally {
  readonly days = new Map<string, DayData>();
  readonly dims = new Map<string, Map<string, number>>();
  readonly linkClicks = new Map<number, number>();
  /** visits per hour (`YYYY-MM-DDTHH`), with interval=hour */
  readonly hours = new Map<string, number>();

  addHour(hour: string, clicks: number): void {
    this.hours.set(hour, (this.hours.get(hour) ?? 0) + clicks);
  }

  day(day: string): DayData {
    let d = this.days.get(day);
    if (!d)
      this.days.set(
        day,
        (d = { clicks: 0, sketches: [], live: [], stored: 0, single: null, legacy: 0 }),
      );
    return d;
  }

  addLinkClicks(linkId: number, clicks: number): void {
    this.linkClicks.set(linkId, (this.linkClicks.get(linkId) ?? 0) + clicks);
  }

  /** Folded rows: clicks add up; a day's sketches are merged later, legacy counts added. */
  addDays(rows: DayRow[]): void {
    for (const r of rows) {
      const d = this.day(r.day);
      const clicks = Number(r.clicks);
      d.clicks += clicks;
      this.addLinkClicks(r.link_id, clicks);
      if (r.has_sketch) {
        d.stored += 1;
        d.single = d.stored === 1 ? Number(r.uniques) : null;
        if (r.sketch) d.sketches.push(r.sketch);
      } else d.legacy += Number(r.uniques);
    }
  }
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
 * Read from a replica when there is one (ReadReplicas), in one snapshot.
 */
@Injectable()
export class StatsRangeReader {
  private readonly logger = new Logger(StatsRangeReader.name);
  private readonly keys: StatsKeys;

  constructor(
    private readonly redis: RedisService,
    @InjectDataSource() private readonly db: DataSource,
    config: AppConfig,
    private readonly replicas: ReadReplicas,
  ) {
    this.keys = new StatsKeys(redis, config.STATS_PARTITIONS);
  }

  /** One link (a QR code's: its link's) over the range. */
  async forLink(linkId: number, range: RangeRequest): Promise<RangeStatistics> {
    const { stats } = await this.replicas.read((db) =>
      this.read(
        db,
        { where: 'd.link_id = $1', single: true, param: linkId, linkIds: [linkId] },
        range,
      ),
    );
    return stats;
  }

  /** Every short code of an account (links, QR codes, bio pages) over the range. */
  async forUser(userId: number, range: RangeRequest): Promise<AccountRangeStatistics> {
    // the account's links from the primary: visits pending in Redis for a link the replica does
    // not have yet still count (its folded rows, if any, come from batches after its creation)
    const links: Array<{ id: number }> = await this.db.query(
      `SELECT id FROM links WHERE user_id = $1`,
      [userId],
    );
    const { stats, linkClicks } = await this.replicas.read((db) =>
      this.read(
        db,
        {
          where: 'd.link_id IN (SELECT id FROM links WHERE user_id = $1)',
          single: false,
          param: userId,
          linkIds: links.map((l) => l.id),
        },
        range,
      ),
    );
    return { ...stats, linkClicks };
  }

  /**
   * The range over the scope: its days (folded rows), its whole months' sketches, its folded
   * dimensions and what is pending in Redis, read at once; then the series and the totals.
   */
  private async read(
    db: EntityManager,
    scope: Scope,
    { from, to, interval }: RangeRequest,
  ): Promise<{ stats: RangeStatistics; linkClicks: Map<number, number> }> {
    const tally = new RangeTally();
    // Calendar months wholly inside the range (one link; not by week): their stored month sketch
    // stands for their days in unions, so those days' sketches are not fetched (except the last
    // few days', which may have visits not folded yet).
    const full = scope.single && interval !== 'week' ? fullMonths(from, to) : [];
    let monthSketches = new Map<string, Buffer>();
    if (dayNumber(from) <= dayNumber(to)) {
      const [daily, dimRows, months, pending, hours] = await Promise.all([
        this.dayRows(db, scope, from, to, full),
        this.dimensions(db, scope, from, to),
        this.monthSketches(db, scope, full),
        this.pendingIn(db, scope.linkIds, from, to),
        interval === 'hour' ? this.hourRows(db, scope, from, to) : [],
      ]);
      tally.addDays(daily);
      monthSketches = months;
      for (const r of dimRows) bump(tally.dims, r.dim, r.label, Number(r.count));
      for (const r of hours) tally.addHour(r.hour, Number(r.clicks));
      await this.addPending(pending, tally);
    }
    const stats = rangeStatistics(tally, monthSketches, new Set(full), from, to, interval);
    return { stats, linkClicks: tally.linkClicks };
  }

  /**
   * The day part: the folded rows of the range's days (clicks, unique counts, sketches; the
   * sketches of days a whole month's sketch stands for are left out, except the last three
   * days', which may have visits not folded yet).
   */
  private dayRows(
    db: EntityManager,
    scope: Scope,
    from: string,
    to: string,
    full: string[],
  ): Promise<DayRow[]> {
    return db.query(
      `SELECT d.link_id, to_char(d.day, 'YYYY-MM-DD') AS day, d.clicks, d.uniques,
              d.sketch IS NOT NULL AS has_sketch,
              CASE WHEN date_trunc('month', d.day)::date = ANY($4::date[])
                    AND d.day < (now() AT TIME ZONE 'UTC')::date - 3
                   THEN NULL ELSE d.sketch END AS sketch
         FROM link_stats_daily d WHERE ${scope.where} AND d.day BETWEEN $2 AND $3`,
      [scope.param, from, to, full.map((m) => `${m}-01`)],
    );
  }

  /** The hour part (interval=hour): folded visits per UTC hour of the range's days. */
  private hourRows(
    db: EntityManager,
    scope: Scope,
    from: string,
    to: string,
  ): Promise<Array<{ hour: string; clicks: string }>> {
    return db.query(
      `SELECT to_char(d.hour, 'YYYY-MM-DD"T"HH24') AS hour, SUM(d.clicks)::bigint AS clicks
         FROM link_stats_hourly d
        WHERE ${scope.where} AND d.hour >= $2::date AND d.hour < $3::date
        GROUP BY 1`,
      [scope.param, from, addDays(to, 1)],
    );
  }

  /** The month part: the stored sketches of the whole months (`YYYY-MM` → sketch). */
  private async monthSketches(
    db: EntityManager,
    scope: Scope,
    full: string[],
  ): Promise<Map<string, Buffer>> {
    if (!full.length) return new Map();
    const rows: Array<{ month: string; sketch: Buffer }> = await db.query(
      `SELECT to_char(d.month, 'YYYY-MM') AS month, d.sketch
         FROM link_stats_monthly d WHERE ${scope.where} AND d.month = ANY($2::date[])`,
      [scope.param, full.map((m) => `${m}-01`)],
    );
    return new Map(rows.map((r) => [r.month, r.sketch]));
  }

  /**
   * Folded dimension counts of the range: whole months from their sums (link_stats_dims_monthly)
   * and the other days from link_stats_dims, a month's days outside the range subtracted where
   * that reads fewer rows (`dimensionPlan`).
   */
  private dimensions(
    db: EntityManager,
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
    return db.query(
      `SELECT dim, label, SUM(n)::bigint AS count FROM (${parts.join(' UNION ALL ')}) x
        GROUP BY dim, label HAVING SUM(n) <> 0`,
      params,
    );
  }

  /** Pending deltas of the links on days of the range (none when Redis is unreachable). */
  private async pendingIn(
    db: EntityManager,
    linkIds: number[],
    from: string,
    to: string,
  ): Promise<PendingCounters> {
    if (!this.redis.ready) return new Map();
    try {
      const pending = await readPending(this.redis, db, this.keys, linkIds);
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
  private async addPending(pending: PendingCounters, tally: RangeTally): Promise<void> {
    const live: Array<[DayData, number, string]> = [];
    for (const [linkId, days] of pending)
      for (const [day, p] of days) {
        const d = tally.day(dayToIso(day));
        d.clicks += p.clicks;
        tally.addLinkClicks(linkId, p.clicks);
        for (const [dim, labels] of p.dims) {
          if (dim === DIM.hour) {
            for (const [label, n] of labels) tally.addHour(`${dayToIso(day)}T${label}`, n);
            continue;
          }
          for (const [label, n] of labels) bump(tally.dims, dim, label, n);
        }
        live.push([d, linkId, day]);
      }
    if (!live.length) return;
    try {
      const pipelines = new PartitionPipelines(this.redis.client, this.keys);
      for (const [, linkId, day] of live) {
        const key = this.keys.visitors(linkId, day);
        pipelines.add(this.keys.partitionOf(linkId), (p) => p.getBuffer(key));
      }
      (await pipelines.exec()).forEach(([err, blob], i) => {
        if (err || !blob) return;
        live[i][0].live.push(blob as Buffer);
      });
    } catch (err) {
      this.logger.warn(`live visitor sketches unavailable: ${(err as Error).message}`);
    }
  }
}

/**
 * The series and the totals from the tally: each period's unique visitors are the union of its
 * sketches (a whole month's: its month sketch; one stored day alone: its stored count), the
 * range's the union of all (whole months read by day: their month sketches stand for their days).
 */
function rangeStatistics(
  tally: RangeTally,
  monthSketches: Map<string, Buffer>,
  fullSet: Set<string>,
  from: string,
  to: string,
  interval: Interval,
): RangeStatistics {
  const union = new RangeUnion();
  let legacy = 0;
  let clicks = 0;
  // hours: the days' path counts clicks and visitors; the series is the hours'
  const byDay = interval === 'hour' ? 'day' : interval;
  const days: SeriesPoint[] = periods(from, to, byDay).map((period) => {
    const inPeriod = period.days.map((day) => tally.days.get(day)).filter((d): d is DayData => !!d);
    const periodLegacy = inPeriod.reduce((n, d) => n + d.legacy, 0);
    const periodClicks = inPeriod.reduce((n, d) => n + d.clicks, 0);
    const live = inPeriod.flatMap((d) => d.live);
    const month = period.date.slice(0, 7);
    const one = inPeriod.length === 1 ? inPeriod[0] : undefined;
    let uniques: number;
    if (interval === 'month' && fullSet.has(month)) {
      // a whole month: its month sketch, and the live sketches of its days not yet folded
      const sketch = monthSketches.get(month);
      uniques = union.count(sketch ? [sketch, ...live] : live);
    } else if (one && one.stored === 1 && one.single !== null && !live.length) {
      // one stored sketch: its count is stored with it (a whole month's day: its month's
      // sketch joins the total below)
      uniques = one.single;
      if (one.sketches.length) union.add(one.sketches[0]);
    } else uniques = union.count([...inPeriod.flatMap((d) => d.sketches), ...live]);
    legacy += periodLegacy;
    clicks += periodClicks;
    return { date: period.date, clicks: periodClicks, uniqueClicks: uniques + periodLegacy };
  });
  const series: SeriesPoint[] =
    interval === 'hour'
      ? hoursOf(from, to).map((hour) => ({
          date: `${hour}:00:00Z`,
          clicks: tally.hours.get(hour) ?? 0,
          uniqueClicks: null,
        }))
      : days;
  // whole months read by day: their month sketches stand for their days' in the total
  if (interval !== 'month') for (const sketch of monthSketches.values()) union.add(sketch);

  const stats: RangeStatistics = {
    clicks,
    uniqueClicks: union.total() + legacy,
    series,
    topCountries: {},
    topReferrers: {},
    topBrowsers: {},
    topOs: {},
    topDevices: {},
    topLanguages: {},
    topCities: {},
    topRegions: {},
    topUtmSources: {},
    topUtmMediums: {},
    topUtmCampaigns: {},
    topReferrerUrls: {},
    topDeviceModels: {},
    socialCount: socialCount(tally.dims.get(DIM.social)),
  };
  for (const [dim, key] of Object.entries(TOP_KEYS)) stats[key] = top(tally.dims.get(dim));
  return stats;
}

/** The union of the range's sketches: its unique visitors (0 without any sketch). */
class RangeUnion {
  private readonly registers = emptyRegisters();
  private merged = false;

  /** Adds one sketch. */
  add(sketch: Buffer): void {
    this.merged = mergeHll(this.registers, sketch) || this.merged;
  }

  /** The unique visitors of a union of sketches (a period's), which joins the range's. */
  count(sketches: Buffer[]): number {
    const registers = emptyRegisters();
    let any = false;
    for (const blob of sketches) any = mergeHll(registers, blob) || any;
    if (!any) return 0;
    mergeRegisters(this.registers, registers);
    this.merged = true;
    return countRegisters(registers);
  }

  total(): number {
    return this.merged ? countRegisters(this.registers) : 0;
  }
}
