import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Dimension counts per link and calendar month: `link_stats_dims_monthly` holds, for each month,
 * the sum of the month's rows of `link_stats_dims` that are stored (the fold adds to both in one
 * statement; retention subtracts what it prunes), so a long range or a lifetime read sums a dozen
 * months rather than hundreds of days. `link_stats_dims` is keyed by day before dimension, so the
 * few days a range reads outside whole months are one index range each.
 */
export class StatsMonthDims1732200007000 implements MigrationInterface {
  name = 'StatsMonthDims1732200007000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE link_stats_dims_monthly (
        link_id int NOT NULL REFERENCES links(id) ON DELETE CASCADE,
        month date NOT NULL,
        dim varchar(4) NOT NULL,
        label varchar(100) NOT NULL,
        count bigint NOT NULL DEFAULT 0,
        PRIMARY KEY (link_id, month, dim, label)
      )`);
    await q.query(`
      INSERT INTO link_stats_dims_monthly (link_id, month, dim, label, count)
      SELECT link_id, date_trunc('month', day)::date, dim, label, SUM(count)
        FROM link_stats_dims
       GROUP BY 1, 2, 3, 4`);
    await q.query(`
      ALTER TABLE link_stats_dims
        DROP CONSTRAINT link_stats_dims_pkey,
        ADD PRIMARY KEY (link_id, day, dim, label)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE link_stats_dims
        DROP CONSTRAINT link_stats_dims_pkey,
        ADD PRIMARY KEY (link_id, dim, label, day)`);
    await q.query(`DROP TABLE IF EXISTS link_stats_dims_monthly`);
  }
}
