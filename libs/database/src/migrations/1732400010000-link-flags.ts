import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Links whose targets the threat feeds or the online lookup flagged after they were made (the
 * worker's re-scan), one row per link and flagged target. A row with `allowed_at` null flags its
 * link (the 451 warning page, `status: "flagged"`); an admin's allow sets `allowed_at`, and the row
 * stays: that target is never flagged again for that link. The target is a URL of up to 2048
 * characters (too long for a btree entry with the id in a few cases): rows are unique by link and
 * the md5 of the target. A deleted link takes its rows with it. One writer: LinkFlags (libs/links).
 */
export class LinkFlags1732400010000 implements MigrationInterface {
  name = 'LinkFlags1732400010000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE link_flags (
        link_id int NOT NULL REFERENCES links(id) ON DELETE CASCADE,
        target text NOT NULL,
        source varchar(40) NOT NULL,
        type varchar(40) NOT NULL,
        flagged_at timestamptz NOT NULL DEFAULT now(),
        allowed_at timestamptz,
        allowed_by int REFERENCES users(id) ON DELETE SET NULL
      )`);
    await q.query(`CREATE UNIQUE INDEX link_flags_target_idx ON link_flags (link_id, md5(target))`);
    await q.query(
      `CREATE INDEX link_flags_active_idx ON link_flags (link_id, flagged_at) WHERE allowed_at IS NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS link_flags`);
  }
}
