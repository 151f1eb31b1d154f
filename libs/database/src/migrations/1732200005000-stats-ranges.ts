import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Statistics over date ranges: each folded link-day keeps its visitors' HyperLogLog sketch (the
 * Redis string of the day's sketch, sparse or dense), so the distinct visitors of any range are
 * the union of its days' sketches; each link-month keeps the union of its days' sketches, so a
 * long range merges a dozen month sketches rather than hundreds of days. Days folded before this
 * migration have no sketch (their daily `uniques` count stands in for them; see
 * docs/statistics.md).
 */
export class StatsRanges1732200005000 implements MigrationInterface {
  name = 'StatsRanges1732200005000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE link_stats_daily ADD COLUMN sketch bytea`);
    // the union of a calendar month's day sketches: a long range reads a dozen of these
    await q.query(`
      CREATE TABLE link_stats_monthly (
        link_id int NOT NULL REFERENCES links(id) ON DELETE CASCADE,
        month date NOT NULL,
        sketch bytea NOT NULL,
        PRIMARY KEY (link_id, month)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS link_stats_monthly`);
    await q.query(`ALTER TABLE link_stats_daily DROP COLUMN IF EXISTS sketch`);
  }
}
