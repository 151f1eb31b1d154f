import { randomUUID } from 'node:crypto';

import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';

import { RedisService } from '@app/redis';

import { FOLD_LISTENER, FoldedVisits, FoldListener } from './fold-listener';
import { compactEncoding, compactHll, coveredBy, emptyRegisters, mergeHll } from '../hll';
import {
  CLAIM_BATCH_SCRIPT,
  DIM,
  dayToIso,
  fieldCounts,
  HLL_TTL_SECONDS,
  StatsKeys,
} from '../keys';

const BATCH_SIZE = 500;
const MAX_BATCHES_PER_RUN = 50;
/** Serialises folds across workers (pg advisory lock key). */
const FOLD_LOCK = 0x5f01d;

type ClaimingRedis = {
  claimVisits(
    dirty: string,
    inflight: string,
    base: string,
    batch: string,
    max: number,
  ): Promise<string[]>;
};

interface DailyRow {
  linkId: number;
  day: string;
  clicks: number;
  uniques: number | null;
  /** the day's HyperLogLog as Redis holds it (null when Redis has none) */
  sketch: Buffer | null;
}

export interface FoldResult {
  batches: number;
  links: number;
  clicks: number;
}

/**
 * The fold: moves the Redis visit counters into Postgres, exactly once (the worker runs it every
 * STATS_FOLD_SECONDS):
 * 1. claim: the dirty links' pending hashes are renamed into a batch (atomic, in Redis);
 * 2. apply: one transaction inserts the batch id into stat_batches and adds the deltas; a batch
 *    already in stat_batches (a crash after commit) is not applied again;
 * 3. clean up: the batch's keys are deleted.
 * A crash after 1 leaves the batch in `st:inflight`: the next run applies it. Unique visitors
 * are HyperLogLog counts per link and day, stored with GREATEST, so refolding is harmless.
 */
@Injectable()
export class StatsFold {
  private readonly logger = new Logger(StatsFold.name);
  private readonly keys: StatsKeys;
  private defined = false;

  constructor(
    private readonly redis: RedisService,
    @InjectDataSource() private readonly db: DataSource,
    @Optional() @Inject(FOLD_LISTENER) private readonly listener?: FoldListener,
  ) {
    this.keys = new StatsKeys(redis);
  }

  /** Applies leftover batches, then claims and applies until nothing is dirty (bounded). */
  async fold(): Promise<FoldResult> {
    const total: FoldResult = { batches: 0, links: 0, clicks: 0 };
    const leftovers = await this.redis.client.smembers(this.keys.inflight);
    for (const batch of leftovers) this.add(total, await this.applyBatch(batch));
    for (let i = 0; i < MAX_BATCHES_PER_RUN; i++) {
      const { batch, size } = await this.claim();
      if (!size) break;
      this.add(total, await this.applyBatch(batch));
      if (size < BATCH_SIZE) break;
    }
    return total;
  }

  /** Step 1 alone (claim one batch without applying it): for crash tests. */
  async claimOnly(): Promise<string | null> {
    const { batch, size } = await this.claim();
    return size ? batch : null;
  }

  /** Step 1: moves up to BATCH_SIZE dirty links into a new in-flight batch. */
  private async claim(): Promise<{ batch: string; size: number }> {
    const batch = `${Date.now()}-${randomUUID()}`;
    const claimed = await this.client().claimVisits(
      this.keys.dirty,
      this.keys.inflight,
      this.keys.base,
      batch,
      BATCH_SIZE,
    );
    return { batch, size: claimed.length };
  }

  /** Applies one claimed batch (idempotent), then deletes its keys. */
  async applyBatch(batch: string, options: { skipCleanup?: boolean } = {}): Promise<FoldResult> {
    const ids = await this.redis.client.smembers(this.keys.batch(batch));
    const pipeline = this.redis.client.pipeline();
    for (const id of ids) pipeline.hgetall(this.keys.batchLink(batch, id));
    const hashes = ((await pipeline.exec()) ?? []).map(([err, value]) => {
      if (err) throw err;
      return value as Record<string, string>;
    });

    const daily = new Map<string, DailyRow>();
    // one entry per (link, day, dimension, label): several profiles may share a label, and one
    // INSERT ... ON CONFLICT may not touch a row twice
    const dimCounts = new Map<string, [number, string, string, string, number]>();
    const visits: FoldedVisits[] = [];
    let clicks = 0;
    ids.forEach((id, i) => {
      const linkId = Number(id);
      for (const [field, value] of Object.entries(hashes[i] ?? {})) {
        const f = fieldCounts(field);
        if (!f) continue;
        const n = Number(value);
        const key = `${linkId}|${f.day}`;
        const row = daily.get(key) ?? {
          linkId,
          day: f.day,
          clicks: 0,
          uniques: null,
          sketch: null,
        };
        daily.set(key, row);
        if (f.clicks) {
          row.clicks += n;
          clicks += n;
          if (this.listener) visits.push(foldedVisits(linkId, f.day, n, f.dims));
        }
        for (const [dim, label] of f.dims) {
          const dimKey = `${key}|${dim}|${label}`;
          const entry = dimCounts.get(dimKey);
          if (entry) entry[4] += n;
          else dimCounts.set(dimKey, [linkId, dayToIso(f.day), dim, label, n]);
        }
      }
    });
    const dims = [...dimCounts.values()];

    // Unique visitors of each (link, day) touched: the day's HyperLogLog count and the sketch
    // itself (kept in Postgres, so ranges can count distinct visitors over many days). The
    // recorder leaves the HLL's expiry to this step (each is read here while its day is written to).
    const rows = [...daily.values()];
    if (rows.length) {
      const pf = this.redis.client.pipeline();
      for (const r of rows) {
        const hll = this.keys.visitors(r.linkId, r.day);
        pf.pfcount(hll).getBuffer(hll).expire(hll, HLL_TTL_SECONDS);
      }
      ((await pf.exec()) ?? []).forEach(([err, value], i) => {
        if (err) return;
        const row = rows[Math.floor(i / 3)];
        if (i % 3 === 0) row.uniques = Number(value);
        else if (i % 3 === 1) row.sketch = (value as Buffer | null) ?? null;
      });
    }

    const applied = await this.db.transaction(async (m) => {
      const fresh = await this.write(m, batch, rows, dims);
      if (fresh && visits.length) await this.listener?.onFold(m, visits);
      return fresh;
    });
    if (!options.skipCleanup) await this.cleanup(batch, ids);
    return applied
      ? { batches: 1, links: ids.length, clicks }
      : { batches: 0, links: 0, clicks: 0 };
  }

  private async write(
    m: EntityManager,
    batch: string,
    rows: DailyRow[],
    dims: Array<[number, string, string, string, number]>,
  ): Promise<boolean> {
    await m.query('SELECT pg_advisory_xact_lock($1)', [FOLD_LOCK]);
    const inserted = await m.query(
      `INSERT INTO stat_batches (batch_id) VALUES ($1) ON CONFLICT DO NOTHING RETURNING batch_id`,
      [batch],
    );
    if (!inserted.length) {
      this.logger.log(`batch ${batch} was already applied`);
      return false;
    }
    if (!rows.length) return true;

    const linkIds = rows.map((r) => r.linkId);
    const days = rows.map((r) => dayToIso(r.day));
    const clicks = rows.map((r) => r.clicks);
    const uniques = rows.map((r) => r.uniques ?? 0);
    const sketches = await this.sketches(m, rows, linkIds, days);
    // Daily rows: clicks add up; uniques take the larger HLL count. The returned old/new
    // uniques give each link's increase of its total unique visitors. Deleted links are skipped.
    const changed: Array<{ link_id: number; clicks: string; uniques_delta: string }> =
      await m.query(
        `WITH input AS (
         SELECT i.* FROM unnest($1::int[], $2::date[], $3::bigint[], $4::bigint[], $5::bytea[]) AS i(link_id, day, clicks, uniques, sketch)
         JOIN links l ON l.id = i.link_id
       ),
       before AS (
         SELECT d.link_id, d.day, d.uniques FROM link_stats_daily d JOIN input USING (link_id, day)
       ),
       upserted AS (
         INSERT INTO link_stats_daily AS d (link_id, day, clicks, uniques, sketch)
         SELECT link_id, day, clicks, uniques, sketch FROM input
         ON CONFLICT (link_id, day) DO UPDATE
           SET clicks = d.clicks + EXCLUDED.clicks, uniques = GREATEST(d.uniques, EXCLUDED.uniques),
               sketch = COALESCE(EXCLUDED.sketch, d.sketch)
         RETURNING d.link_id, d.day, d.uniques
       )
       SELECT u.link_id, SUM(i.clicks)::bigint AS clicks, SUM(u.uniques - COALESCE(b.uniques, 0))::bigint AS uniques_delta
         FROM upserted u
         JOIN input i ON i.link_id = u.link_id AND i.day = u.day
         LEFT JOIN before b ON b.link_id = u.link_id AND b.day = u.day
        GROUP BY u.link_id`,
        [linkIds, days, clicks, uniques, sketches],
      );
    if (changed.length) {
      await m.query(
        `INSERT INTO link_stats_total AS t (link_id, clicks, uniques)
         SELECT * FROM unnest($1::int[], $2::bigint[], $3::bigint[])
         ON CONFLICT (link_id) DO UPDATE SET clicks = t.clicks + EXCLUDED.clicks, uniques = t.uniques + EXCLUDED.uniques`,
        [
          changed.map((c) => c.link_id),
          changed.map((c) => c.clicks),
          changed.map((c) => c.uniques_delta),
        ],
      );
    }
    await this.months(m, linkIds, days, sketches);
    if (dims.length) {
      // the days' counts, and the same counts added to their months' (link_stats_dims_monthly
      // holds the sum of each month's stored days)
      await m.query(
        `WITH input AS (
           SELECT i.* FROM unnest($1::int[], $2::date[], $3::varchar[], $4::varchar[], $5::bigint[]) AS i(link_id, day, dim, label, count)
           JOIN links l ON l.id = i.link_id
         ),
         days AS (
           INSERT INTO link_stats_dims AS s (link_id, day, dim, label, count)
           SELECT * FROM input
           ON CONFLICT (link_id, day, dim, label) DO UPDATE SET count = s.count + EXCLUDED.count
         )
         INSERT INTO link_stats_dims_monthly AS s (link_id, month, dim, label, count)
         SELECT link_id, date_trunc('month', day)::date, dim, label, SUM(count) FROM input
          GROUP BY 1, 2, 3, 4
         ON CONFLICT (link_id, month, dim, label) DO UPDATE SET count = s.count + EXCLUDED.count`,
        [
          dims.map((d) => d[0]),
          dims.map((d) => d[1]),
          dims.map((d) => d[2]),
          dims.map((d) => d[3]),
          dims.map((d) => d[4]),
        ],
      );
    }
    return true;
  }

  /**
   * The sketch to store for each row: Redis's copy of the day's HyperLogLog, which normally
   * includes everything stored before (it lives until three days after its day's last fold); if
   * Redis lost it meanwhile, the union of the stored and the current one, so a sketch never
   * shrinks. Stored in its smallest encoding (see `compactHll`). Read under the fold lock, inside
   * the transaction that writes them.
   */
  private async sketches(
    m: EntityManager,
    rows: DailyRow[],
    linkIds: number[],
    days: string[],
  ): Promise<Array<Buffer | null>> {
    const stored: Array<{ link_id: number; day: string; sketch: Buffer }> = await m.query(
      `SELECT d.link_id, to_char(d.day, 'YYYYMMDD') AS day, d.sketch
         FROM link_stats_daily d
         JOIN unnest($1::int[], $2::date[]) AS i(link_id, day) USING (link_id, day)
        WHERE d.sketch IS NOT NULL`,
      [linkIds, days],
    );
    const before = new Map(stored.map((r) => [`${r.link_id}|${r.day}`, r.sketch]));
    return rows.map((r) => {
      if (!r.sketch) return null;
      const old = before.get(`${r.linkId}|${r.day}`);
      if (!old) return compactHll(r.sketch);
      const current = emptyRegisters();
      const previous = emptyRegisters();
      if (!mergeHll(current, r.sketch) || !mergeHll(previous, old)) return compactHll(r.sketch);
      if (!coveredBy(previous, current)) mergeHll(current, old);
      return compactEncoding(current);
    });
  }

  /**
   * Merges the day sketches just stored into their months' sketches (link_stats_monthly): a
   * month's sketch is the union of its days', kept up to date in the same transaction.
   */
  private async months(
    m: EntityManager,
    linkIds: number[],
    days: string[],
    sketches: Array<Buffer | null>,
  ): Promise<void> {
    const byMonth = new Map<string, { linkId: number; month: string; days: Buffer[] }>();
    sketches.forEach((sketch, i) => {
      if (!sketch) return;
      const month = `${days[i].slice(0, 8)}01`;
      const key = `${linkIds[i]}|${month}`;
      const entry = byMonth.get(key) ?? { linkId: linkIds[i], month, days: [] };
      byMonth.set(key, entry);
      entry.days.push(sketch);
    });
    if (!byMonth.size) return;
    const entries = [...byMonth.values()];
    const stored: Array<{ link_id: number; month: string; sketch: Buffer }> = await m.query(
      `SELECT s.link_id, to_char(s.month, 'YYYY-MM-DD') AS month, s.sketch
         FROM link_stats_monthly s
         JOIN unnest($1::int[], $2::date[]) AS i(link_id, month) USING (link_id, month)`,
      [entries.map((e) => e.linkId), entries.map((e) => e.month)],
    );
    const before = new Map(stored.map((r) => [`${r.link_id}|${r.month}`, r.sketch]));
    const merged = entries.map((e) => {
      const registers = emptyRegisters();
      const old = before.get(`${e.linkId}|${e.month}`);
      if (old) mergeHll(registers, old);
      for (const day of e.days) mergeHll(registers, day);
      return compactEncoding(registers);
    });
    await m.query(
      `INSERT INTO link_stats_monthly AS s (link_id, month, sketch)
       SELECT i.* FROM unnest($1::int[], $2::date[], $3::bytea[]) AS i(link_id, month, sketch)
       JOIN links l ON l.id = i.link_id
       ON CONFLICT (link_id, month) DO UPDATE SET sketch = EXCLUDED.sketch`,
      [entries.map((e) => e.linkId), entries.map((e) => e.month), merged],
    );
  }

  private async cleanup(batch: string, ids: string[]): Promise<void> {
    const keys = [...ids.map((id) => this.keys.batchLink(batch, id)), this.keys.batch(batch)];
    await this.redis.client
      .multi()
      .unlink(...keys)
      .srem(this.keys.inflight, batch)
      .exec();
  }

  /**
   * Drops per-day detail (clicks, sketches, dimensions, taken off their months' sums; month
   * sketches of months wholly older) older than each owner's retention: the
   * `retention` (days; 0 = forever) of their effective plan (a paid membership past its expiry
   * counts as the free plan), none for admins. Also forgets batch ids older than a week. Lifetime
   * totals stay.
   */
  async applyRetention(): Promise<void> {
    const dayOlder = `s.day < (now() AT TIME ZONE 'UTC')::date - k.days`;
    // pruned dimension rows come off their months' sums in the same statement (a month's row
    // that reaches zero goes), so a month keeps the sum of the days still stored; under the fold's
    // lock, so no fold adds to a month between the two
    await this.db.transaction(async (m) => {
      await m.query('SELECT pg_advisory_xact_lock($1)', [FOLD_LOCK]);
      await m.query(
        `WITH ${KEPT_DAYS},
       gone AS (
         DELETE FROM link_stats_dims s USING links l, kept k
          WHERE s.link_id = l.id AND l.user_id = k.user_id AND k.days > 0 AND ${dayOlder}
         RETURNING s.link_id, s.day, s.dim, s.label, s.count
       ),
       sums AS (
         SELECT link_id, date_trunc('month', day)::date AS month, dim, label, SUM(count) AS count
           FROM gone GROUP BY 1, 2, 3, 4
       ),
       lowered AS (
         UPDATE link_stats_dims_monthly m SET count = m.count - sums.count FROM sums
          WHERE (m.link_id, m.month, m.dim, m.label) = (sums.link_id, sums.month, sums.dim, sums.label)
            AND m.count > sums.count
       )
       DELETE FROM link_stats_dims_monthly m USING sums
        WHERE (m.link_id, m.month, m.dim, m.label) = (sums.link_id, sums.month, sums.dim, sums.label)
          AND m.count <= sums.count`,
      );
    });
    for (const [table, older] of [
      ['link_stats_daily', dayOlder],
      // a month goes once its last day is older than what is kept
      [
        'link_stats_monthly',
        `s.month + interval '1 month' - interval '1 day' < (now() AT TIME ZONE 'UTC')::date - k.days`,
      ],
    ]) {
      await this.db.query(
        `WITH ${KEPT_DAYS}
         DELETE FROM ${table} s USING links l, kept k
          WHERE s.link_id = l.id AND l.user_id = k.user_id AND k.days > 0 AND ${older}`,
      );
    }
    await this.db.query(`DELETE FROM stat_batches WHERE applied_at < now() - interval '7 days'`);
  }

  private add(total: FoldResult, r: FoldResult): void {
    total.batches += r.batches;
    total.links += r.links;
    total.clicks += r.clicks;
  }

  private client(): ClaimingRedis {
    if (!this.defined) {
      this.redis.client.defineCommand('claimVisits', { numberOfKeys: 2, lua: CLAIM_BATCH_SCRIPT });
      this.defined = true;
    }
    return this.redis.client as unknown as ClaimingRedis;
  }
}

/**
 * CTEs `free` and `kept`: the days of statistics each non-admin user's effective plan keeps (a
 * paid membership past its expiry counts as the free plan; 0 = forever).
 */
const KEPT_DAYS = `free AS (SELECT limits FROM plans WHERE free ORDER BY id LIMIT 1),
  kept AS (
    SELECT u.id AS user_id,
           COALESCE((CASE WHEN p.free OR u.expires IS NULL OR u.expires > now()
                          THEN p.limits ELSE (SELECT limits FROM free) END ->> 'retention')::int, 0) AS days
      FROM users u JOIN plans p ON p.id = u.plan_id
     WHERE NOT u.is_admin
  )`;

const NAMED: Record<string, 'country' | 'referrer' | 'browser' | 'os' | 'device' | 'language'> = {
  [DIM.country]: 'country',
  [DIM.referrer]: 'referrer',
  [DIM.browser]: 'browser',
  [DIM.os]: 'os',
  [DIM.device]: 'device',
  [DIM.language]: 'language',
};

function foldedVisits(
  linkId: number,
  day: string,
  count: number,
  dims: Array<[string, string]>,
): FoldedVisits {
  const v: FoldedVisits = {
    linkId,
    day: dayToIso(day),
    count,
    country: null,
    referrer: null,
    browser: null,
    os: null,
    device: null,
    language: null,
  };
  for (const [dim, label] of dims) if (NAMED[dim]) v[NAMED[dim]] = label;
  return v;
}
