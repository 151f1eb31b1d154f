import { MigrationInterface, QueryRunner } from 'typeorm';

/** The tables whose rows per user `link_counts` keeps (kind = the table's count kind). */
const COUNTED = [
  ['campaigns', 'campaign'],
  ['channels', 'channel'],
] as const;

/**
 * `GET /api/campaigns` and `GET /api/channels` without counting the user's rows per request: like
 * links, bio pages and QR codes (migration ListScale), `link_counts` keeps each user's number of
 * campaigns (kind `campaign`) and channels (kind `channel`), maintained by triggers in the writing
 * transaction (per statement for INSERT and DELETE, per row for a change of owner; 16 slots per
 * user). The lists read it and take their page's ids from `campaigns_user_idx` /
 * `channels_user_idx` (user, id): the page costs its depth, not the user's rows.
 */
export class OwnedCounts1732400071000 implements MigrationInterface {
  name = 'OwnedCounts1732400071000';

  async up(q: QueryRunner): Promise<void> {
    const upsert = `ON CONFLICT (user_id, kind, slot) DO UPDATE SET n = c.n + EXCLUDED.n`;
    await q.query(`
      CREATE FUNCTION owned_count_rows() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        k varchar := TG_ARGV[0];
      BEGIN
        IF TG_OP = 'INSERT' THEN
          INSERT INTO link_counts AS c (user_id, kind, slot, n)
          SELECT user_id, k, pg_backend_pid() % 16, count(*) FROM new_rows
           GROUP BY user_id ORDER BY user_id
          ${upsert};
        ELSIF TG_OP = 'DELETE' THEN
          INSERT INTO link_counts AS c (user_id, kind, slot, n)
          SELECT o.user_id, k, pg_backend_pid() % 16, -count(*) FROM old_rows o
           WHERE EXISTS (SELECT 1 FROM users u WHERE u.id = o.user_id)
           GROUP BY o.user_id ORDER BY o.user_id
          ${upsert};
        ELSIF TG_OP = 'UPDATE' THEN
          PERFORM link_counts_add(OLD.user_id, k, -1);
          PERFORM link_counts_add(NEW.user_id, k, 1);
        ELSE
          DELETE FROM link_counts WHERE kind = k;
        END IF;
        RETURN NULL;
      END $$`);
    for (const [table, kind] of COUNTED) {
      await q.query(`
        CREATE TRIGGER ${table}_count_insert AFTER INSERT ON ${table}
          REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION owned_count_rows('${kind}')`);
      await q.query(`
        CREATE TRIGGER ${table}_count_delete AFTER DELETE ON ${table}
          REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION owned_count_rows('${kind}')`);
      await q.query(`
        CREATE TRIGGER ${table}_count_move AFTER UPDATE ON ${table}
          FOR EACH ROW WHEN (OLD.user_id <> NEW.user_id) EXECUTE FUNCTION owned_count_rows('${kind}')`);
      await q.query(`
        CREATE TRIGGER ${table}_count_truncate AFTER TRUNCATE ON ${table}
          FOR EACH STATEMENT EXECUTE FUNCTION owned_count_rows('${kind}')`);
      // the counts of the rows already there (no writer runs between this and the commit)
      await q.query(`LOCK TABLE ${table} IN SHARE MODE`);
      await q.query(`
        INSERT INTO link_counts (user_id, kind, slot, n)
        SELECT user_id, '${kind}', 0, count(*) FROM ${table} GROUP BY user_id
        ON CONFLICT (user_id, kind, slot) DO UPDATE SET n = link_counts.n + EXCLUDED.n`);
    }
  }

  async down(q: QueryRunner): Promise<void> {
    for (const [table, kind] of COUNTED) {
      for (const t of ['insert', 'delete', 'move', 'truncate'])
        await q.query(`DROP TRIGGER IF EXISTS ${table}_count_${t} ON ${table}`);
      await q.query(`DELETE FROM link_counts WHERE kind = '${kind}'`);
    }
    await q.query(`DROP FUNCTION IF EXISTS owned_count_rows()`);
  }
}
