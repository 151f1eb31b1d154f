import { Logger } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

import { compactEncoding, compactHll, coveredBy, emptyRegisters, mergeHll } from '../hll';
import { dayToIso } from '../keys';
import { DailyRow, DimCount, FoldBatch } from './fold-batch';
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
  ) {}

  /** Applies a batch once: false when it was applied before. */
  apply(batch: FoldBatch): Promise<boolean> {
    return this.db.transaction(async (m) => {
      const fresh = await this.write(m, batch.id, batch.rows, batch.dims);
      if (fresh && batch.visits.length) await this.listener?.onFold(m, batch.visits);
      return fresh;
    });
  }

  private async write(
    m: EntityManager,
    batch: string,
    rows: DailyRow[],
    dims: DimCount[],
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
}
