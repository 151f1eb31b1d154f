import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Visits per link and UTC hour (`interval=hour` of range reads): the fold adds each batch's
 * hourly counts in the transaction that adds its daily ones, so a day's hours add up to its
 * clicks. Retention keeps hours for 8 days (and never longer than the owner's plan keeps days);
 * the index on `hour` serves that deletion.
 */
export class StatsHourly1732400040000 implements MigrationInterface {
  name = 'StatsHourly1732400040000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE link_stats_hourly (
        link_id int NOT NULL REFERENCES links(id) ON DELETE CASCADE,
        hour timestamp NOT NULL,
        clicks bigint NOT NULL DEFAULT 0,
        PRIMARY KEY (link_id, hour)
      )`);
    await q.query(`CREATE INDEX link_stats_hourly_hour_idx ON link_stats_hourly (hour)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS link_stats_hourly`);
  }
}
