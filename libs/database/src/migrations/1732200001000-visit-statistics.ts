import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Folded visit statistics. Redis holds the deltas of the last seconds; the worker folds them in
 * batches recorded in stat_batches, so a batch is applied exactly once even across crashes.
 */
export class VisitStatistics1732200001000 implements MigrationInterface {
  name = 'VisitStatistics1732200001000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE link_stats_total (
        link_id int PRIMARY KEY REFERENCES links(id) ON DELETE CASCADE,
        clicks bigint NOT NULL DEFAULT 0,
        uniques bigint NOT NULL DEFAULT 0
      )`);
    await q.query(`
      CREATE TABLE link_stats_daily (
        link_id int NOT NULL REFERENCES links(id) ON DELETE CASCADE,
        day date NOT NULL,
        clicks bigint NOT NULL DEFAULT 0,
        uniques bigint NOT NULL DEFAULT 0,
        PRIMARY KEY (link_id, day)
      )`);
    await q.query(`
      CREATE TABLE link_stats_dims (
        link_id int NOT NULL REFERENCES links(id) ON DELETE CASCADE,
        day date NOT NULL,
        dim varchar(4) NOT NULL,
        label varchar(100) NOT NULL,
        count bigint NOT NULL DEFAULT 0,
        PRIMARY KEY (link_id, dim, label, day)
      )`);
    await q.query(`CREATE INDEX link_stats_dims_day_idx ON link_stats_dims (day)`);
    await q.query(`CREATE INDEX link_stats_daily_day_idx ON link_stats_daily (day)`);
    await q.query(`
      CREATE TABLE stat_batches (
        batch_id varchar(64) PRIMARY KEY,
        applied_at timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const t of ['stat_batches', 'link_stats_dims', 'link_stats_daily', 'link_stats_total']) {
      await q.query(`DROP TABLE IF EXISTS ${t}`);
    }
  }
}
