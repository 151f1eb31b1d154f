import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Statistics over date ranges: each folded link-day keeps its visitors' HyperLogLog sketch (the
 * Redis string of the day's sketch, sparse or dense), so the distinct visitors of any range are
 * the union of its days' sketches. Days folded before this migration have no sketch (their
 * daily `uniques` count stands in for them; see docs/statistics.md).
 */
export class StatsRanges1732200005000 implements MigrationInterface {
  name = 'StatsRanges1732200005000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE link_stats_daily ADD COLUMN sketch bytea`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE link_stats_daily DROP COLUMN IF EXISTS sketch`);
  }
}
