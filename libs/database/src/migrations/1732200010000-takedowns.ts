import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Takedowns that outlive their short code, and login links a key rotation revokes.
 *
 * - `link_takedowns`: while an admin has a short code (link, bio page, QR code) disabled, its alias
 *   is reserved here for its owner, and stays reserved when the owner deletes the code; the
 *   admin's enable (by the same id: `link_id`, or `qr_id` for a QR code named by its own id)
 *   removes the reservation. The trigger `links_takedown_guard`
 *   makes every writer of `links` respect it: an INSERT of a reserved alias is skipped (as
 *   `ON CONFLICT DO NOTHING` skips a taken one, so generated aliases draw again and a custom one
 *   is refused), and an UPDATE to a reserved alias, or of a disabled code's alias, is a
 *   unique violation (`links_alias_takedown`).
 * - `login_tokens.revoked_at`: set on the user's unused login links when the API key is rotated.
 */
export class Takedowns1732200010000 implements MigrationInterface {
  name = 'Takedowns1732200010000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE link_takedowns (
        alias varchar(64) PRIMARY KEY,
        user_id int NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        link_id int NOT NULL,
        qr_id int,
        kind varchar(8) NOT NULL,
        domain_id int REFERENCES domains(id) ON DELETE SET NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX link_takedowns_link_idx ON link_takedowns (link_id)`);
    // the codes disabled before this migration
    await q.query(`
      INSERT INTO link_takedowns (alias, user_id, link_id, qr_id, kind, domain_id, created_at)
      SELECT l.alias, l.user_id, l.id, q.id, l.kind, l.domain_id, l.disabled_at
        FROM links l LEFT JOIN qr_codes q ON q.link_id = l.id
       WHERE l.disabled_at IS NOT NULL`);
    await q.query(`
      CREATE FUNCTION links_takedown_guard() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'UPDATE' THEN
          IF NEW.alias = OLD.alias THEN
            RETURN NEW;
          END IF;
          IF OLD.disabled_at IS NOT NULL OR EXISTS (
            SELECT 1 FROM link_takedowns t WHERE t.alias = NEW.alias AND t.link_id <> NEW.id
          ) THEN
            RAISE unique_violation USING CONSTRAINT = 'links_alias_takedown',
              MESSAGE = 'alias ' || NEW.alias || ' is reserved by a takedown';
          END IF;
          RETURN NEW;
        END IF;
        IF EXISTS (SELECT 1 FROM link_takedowns t WHERE t.alias = NEW.alias) THEN
          RETURN NULL;
        END IF;
        RETURN NEW;
      END $$`);
    await q.query(`
      CREATE TRIGGER links_takedown_guard BEFORE INSERT OR UPDATE OF alias ON links
        FOR EACH ROW EXECUTE FUNCTION links_takedown_guard()`);
    await q.query(`ALTER TABLE login_tokens ADD COLUMN revoked_at timestamptz`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE login_tokens DROP COLUMN revoked_at`);
    await q.query(`DROP TRIGGER IF EXISTS links_takedown_guard ON links`);
    await q.query(`DROP FUNCTION IF EXISTS links_takedown_guard()`);
    await q.query(`DROP TABLE IF EXISTS link_takedowns`);
  }
}
