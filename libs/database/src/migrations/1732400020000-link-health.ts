import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Destination health (docs/link-health.md):
 * - `links.fallback_url`: the link option `fallbackurl`, served instead of the target while the
 *   target is broken;
 * - `link_health`: one row per link the worker probes (links visited in the last 30 days), written
 *   by the worker only (LinkHealthStore): the state of the target `url` it was probed for, the
 *   consecutive failures and successes, the last 20 probes (`history`, newest first), the
 *   registrable domain recorded on the first good probe after the URL was set (`domain`), the
 *   domain a drift was last reported for, and when the link is due again (`next_at`, also the
 *   lease of a claimed row with `lease`).
 */
export class LinkHealth1732400020000 implements MigrationInterface {
  name = 'LinkHealth1732400020000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE links ADD COLUMN fallback_url text`);
    await q.query(`
      CREATE TABLE link_health (
        link_id int PRIMARY KEY REFERENCES links(id) ON DELETE CASCADE,
        url text NOT NULL,
        status varchar(8) NOT NULL DEFAULT 'unknown' CHECK (status IN ('unknown','ok','broken')),
        fails int NOT NULL DEFAULT 0,
        oks int NOT NULL DEFAULT 0,
        since timestamptz,
        checked_at timestamptz,
        http_status int,
        error varchar(300),
        history jsonb NOT NULL DEFAULT '[]',
        domain varchar(255),
        drifted_to varchar(255),
        next_at timestamptz NOT NULL,
        lease int
      )`);
    await q.query(`CREATE INDEX link_health_due_idx ON link_health (next_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS link_health`);
    await q.query(`ALTER TABLE links DROP COLUMN IF EXISTS fallback_url`);
  }
}
