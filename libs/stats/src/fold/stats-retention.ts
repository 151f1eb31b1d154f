import { DataSource } from 'typeorm';

import { EFFECTIVE_LIMITS_SQL } from '@app/common';

import { HOURLY_DAYS } from '../read/stats-range';
import { FOLD_LOCK } from './fold-apply';

/**
 * CTE `kept`: the days of statistics each user's effective plan keeps (`retention`; 0 = forever),
 * by PlanService's rule (EFFECTIVE_LIMITS_SQL: admins have no row, so keep everything).
 */
const KEPT_DAYS = `kept AS (
    SELECT e.user_id, COALESCE((e.limits ->> 'retention')::int, 0) AS days
      FROM (${EFFECTIVE_LIMITS_SQL}) e
  )`;

/**
 * Drops per-day detail (clicks, sketches, dimensions, taken off their months' sums; month
 * sketches of months wholly older; hourly counts) older than each owner's retention: the `retention` (days;
 * 0 = forever) of their effective plan, none for admins. Also forgets batch ids older than a
 * week. Lifetime totals stay.
 */
export class StatsRetention {
  constructor(private readonly db: DataSource) {}

  async apply(): Promise<void> {
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
      ['link_stats_hourly', `s.hour < (now() AT TIME ZONE 'UTC')::date - k.days`],
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
    // hours are kept HOURLY_DAYS days (today and the days before it) whatever the plan
    await this.db.query(
      `DELETE FROM link_stats_hourly WHERE hour < (now() AT TIME ZONE 'UTC')::date - $1::int`,
      [HOURLY_DAYS - 1],
    );
    await this.db.query(`DELETE FROM stat_batches WHERE applied_at < now() - interval '7 days'`);
  }
}
