import { Logger } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

import { pgArray } from '@app/database';

import {
  compactEncoding,
  compactHll,
  compactUnion,
  coveredBy,
  emptyRegisters,
  encodeSet,
  fromSparse,
  mergeHll,
  unionOf,
} from '../hll';
import { CAPPED_DIMS, dayToIso, OTHER_LABEL } from '../keys';
import { DailyRow, DimCount, FoldBatch, HourCount } from './fold-batch';
import { FoldListener } from './fold-listener';

/** Serialises folds (and retention) across workers (pg advisory lock key). */
export const FOLD_LOCK = 0x5f01d;

/**
 * The fold's Postgres side: one transaction records the batch id in stat_batches and adds its
 * counts (daily rows, lifetime totals, month sketches, dimensions of the days and their months);
 * a batch already in stat_batches (a crash after the commit) is not applied again. The fold
 * listener writes its events in the same transaction.
 */
export class FoldApply {
  private readonly logger = new Logger('StatsFold');

  constructor(
    private readonly db: DataSource,
    private readonly listener?: FoldListener,
    /** labels kept per link, day and capped dimension (STATS_LABELS_PER_DAY) */
    private readonly labelsPerDay = 100,
  ) {}

  /** Applies a batch once: false when it was applied before. */
  apply(batch: FoldBatch): Promise<boolean> {
    return this.db.transaction(async (m) => {
      const fresh = await this.write(m, batch.id, batch.rows, batch.dims, batch.hours ?? []);
      if (fresh && batch.visits.length) await this.listener?.onFold(m, batch.visits);
      return fresh;
    });
  }

  private async write(
    m: EntityManager,
    batch: string,
    rows: DailyRow[],
    dims: DimCount[],
    hours: HourCount[],
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
        [pgArray(linkIds), pgArray(days), pgArray(clicks), pgArray(uniques), sketches],
      );
    if (changed.length) {
      await m.query(
        `INSERT INTO link_stats_total AS t (link_id, clicks, uniques)
         SELECT * FROM unnest($1::int[], $2::bigint[], $3::bigint[])
         ON CONFLICT (link_id) DO UPDATE SET clicks = t.clicks + EXCLUDED.clicks, uniques = t.uniques + EXCLUDED.uniques`,
        [
          pgArray(changed.map((c) => c.link_id)),
          pgArray(changed.map((c) => c.clicks)),
          pgArray(changed.map((c) => c.uniques_delta)),
        ],
      );
    }
    await this.months(m, linkIds, days, sketches);
    if (hours.length) {
      await m.query(
        `INSERT INTO link_stats_hourly AS h (link_id, hour, clicks)
         SELECT i.* FROM unnest($1::int[], $2::timestamp[], $3::bigint[]) AS i(link_id, hour, clicks)
         JOIN links l ON l.id = i.link_id
         ON CONFLICT (link_id, hour) DO UPDATE SET clicks = h.clicks + EXCLUDED.clicks`,
        [
          pgArray(hours.map((h) => h[0])),
          pgArray(hours.map((h) => h[1])),
          pgArray(hours.map((h) => h[2])),
        ],
      );
    }
    dims = await this.capLabels(m, dims);
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
          pgArray(dims.map((d) => d[0])),
          pgArray(dims.map((d) => d[1])),
          pgArray(dims.map((d) => d[2])),
          pgArray(dims.map((d) => d[3])),
          pgArray(dims.map((d) => d[4])),
        ],
      );
    }
    return true;
  }

  /**
   * Bounds the labels stored per link, day and capped dimension (CAPPED_DIMS: labels a visitor
   * chooses) to `labelsPerDay`: labels already stored keep counting; new ones are admitted,
   * largest first, while the link-day has room; the visits of the rest are counted under
   * OTHER_LABEL. So a visitor sending a million distinct referrers or UTM values adds at most
   * `labelsPerDay` + 1 rows per dimension and day. Runs under the fold lock, in the transaction
   * that writes, so the stored labels cannot change in between.
   */
  private async capLabels(m: EntityManager, dims: DimCount[]): Promise<DimCount[]> {
    const cap = this.labelsPerDay;
    const groups = new Map<string, DimCount[]>();
    const out: DimCount[] = [];
    for (const d of dims) {
      if (!CAPPED_DIMS.includes(d[2])) {
        out.push(d);
        continue;
      }
      const key = `${d[0]}|${d[1]}|${d[2]}`;
      const group = groups.get(key);
      if (group) group.push(d);
      else groups.set(key, [d]);
    }
    if (!groups.size) return dims;
    const entries = [...groups.values()];
    // the groups that may overflow (labels stored, an index range of the primary key each, plus
    // those coming, past the cap): only they are answered, so the common case reads back nothing
    const stored: Array<{ link_id: number; day: string; dim: string; n: number }> = await m.query(
      `SELECT i.link_id, to_char(i.day, 'YYYY-MM-DD') AS day, i.dim, c.n
         FROM unnest($1::int[], $2::date[], $3::varchar[], $4::int[]) AS i(link_id, day, dim, incoming)
        CROSS JOIN LATERAL (
          SELECT count(*)::int AS n FROM link_stats_dims s
           WHERE s.link_id = i.link_id AND s.day = i.day AND s.dim = i.dim AND s.label <> $5
        ) c
        WHERE c.n + i.incoming > $6`,
      [
        pgArray(entries.map((g) => g[0][0])),
        pgArray(entries.map((g) => g[0][1])),
        pgArray(entries.map((g) => g[0][2])),
        pgArray(entries.map((g) => g.length)),
        OTHER_LABEL,
        cap,
      ],
    );
    const storedCount = new Map(stored.map((r) => [`${r.link_id}|${r.day}|${r.dim}`, r.n]));
    // the groups that may overflow: which of their labels are stored already
    const tight = [...groups].filter(([key]) => storedCount.has(key));
    let known = new Set<string>();
    if (tight.length) {
      const labels = tight.flatMap(([, g]) => g);
      const rows: Array<{ link_id: number; day: string; dim: string; label: string }> =
        await m.query(
          `SELECT s.link_id, to_char(s.day, 'YYYY-MM-DD') AS day, s.dim, s.label
             FROM link_stats_dims s
             JOIN unnest($1::int[], $2::date[], $3::varchar[], $4::varchar[]) AS i(link_id, day, dim, label)
               USING (link_id, day, dim, label)`,
          [
            pgArray(labels.map((d) => d[0])),
            pgArray(labels.map((d) => d[1])),
            pgArray(labels.map((d) => d[2])),
            pgArray(labels.map((d) => d[3])),
          ],
        );
      known = new Set(rows.map((r) => `${r.link_id}|${r.day}|${r.dim}|${r.label}`));
    }
    for (const [key, group] of groups) {
      const used = storedCount.get(key);
      if (used === undefined) {
        out.push(...group);
        continue;
      }
      const fresh: DimCount[] = [];
      let other = 0;
      for (const d of group) {
        if (d[3] === OTHER_LABEL) other += d[4];
        else if (known.has(`${key}|${d[3]}`)) out.push(d);
        else fresh.push(d);
      }
      fresh.sort((a, b) => b[4] - a[4] || (a[3] < b[3] ? -1 : a[3] > b[3] ? 1 : 0));
      const room = Math.max(0, cap - used);
      out.push(...fresh.slice(0, room));
      for (const d of fresh.slice(room)) other += d[4];
      if (other) out.push([group[0][0], group[0][1], group[0][2], OTHER_LABEL, other]);
    }
    return out;
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
      [pgArray(linkIds), pgArray(days)],
    );
    const before = new Map(stored.map((r) => [`${r.link_id}|${r.day}`, r.sketch]));
    return rows.map((r) => {
      if (!r.sketch) return null;
      const old = before.get(`${r.linkId}|${r.day}`);
      if (!old) return compactHll(r.sketch);
      // both sparse (a day of a few hundred visitors or fewer): their set registers merged
      const current = fromSparse(r.sketch);
      const previous = fromSparse(old);
      const union = current && previous ? encodeSet(unionOf(current, previous)) : null;
      return union ?? this.denseUnion(r.sketch, old);
    });
  }

  /** The day's sketch from Redis and the stored one merged through register arrays (`sketches`). */
  private denseUnion(sketch: Buffer, old: Buffer): Buffer {
    const current = emptyRegisters();
    const previous = emptyRegisters();
    if (!mergeHll(current, sketch) || !mergeHll(previous, old)) return compactHll(sketch);
    if (!coveredBy(previous, current)) mergeHll(current, old);
    return compactEncoding(current);
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
      [pgArray(entries.map((e) => e.linkId)), pgArray(entries.map((e) => e.month))],
    );
    const before = new Map(stored.map((r) => [`${r.link_id}|${r.month}`, r.sketch]));
    const merged = entries.map((e) => {
      const old = before.get(`${e.linkId}|${e.month}`);
      return compactUnion(old ? [old, ...e.days] : e.days);
    });
    await m.query(
      `INSERT INTO link_stats_monthly AS s (link_id, month, sketch)
       SELECT i.* FROM unnest($1::int[], $2::date[], $3::bytea[]) AS i(link_id, month, sketch)
       JOIN links l ON l.id = i.link_id
       ON CONFLICT (link_id, month) DO UPDATE SET sketch = EXCLUDED.sketch`,
      [pgArray(entries.map((e) => e.linkId)), pgArray(entries.map((e) => e.month)), merged],
    );
  }
}
