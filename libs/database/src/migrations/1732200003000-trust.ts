import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Abuse controls: the blocklist of destinations (entries added through the admin API; the
 * BLOCKLIST_FILE is read at start), links an admin disabled, and proof of branded-domain
 * ownership (a TXT record holding the domain's token). Domains that exist already are taken as
 * verified: they were accepted under the rules of their time.
 */
export class Trust1732200003000 implements MigrationInterface {
  name = 'Trust1732200003000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE blocklist (
        id serial PRIMARY KEY,
        entry varchar(255) NOT NULL UNIQUE,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`ALTER TABLE links ADD COLUMN disabled_at timestamptz`);
    await q.query(`
      ALTER TABLE domains
        ADD COLUMN verify_token varchar(64) NOT NULL DEFAULT md5(random()::text || clock_timestamp()::text),
        ADD COLUMN verified_at timestamptz`);
    await q.query(`UPDATE domains SET verified_at = created_at`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE domains DROP COLUMN verify_token, DROP COLUMN verified_at`);
    await q.query(`ALTER TABLE links DROP COLUMN disabled_at`);
    await q.query(`DROP TABLE blocklist`);
  }
}
