import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Lists and search that cost the same for a user with a million links as for one with a thousand.
 *
 * - `link_counts`: how many codes each user owns, by kind (`link`, `bio`, `qr` from `links.kind`;
 *   `qrcode` for every `qr_codes` row, the QR list's total, and `qr-link` for those of type link,
 *   which the plan's `links` count includes), kept by
 *   triggers on `links` and `qr_codes`, so every writer (api, worker imports, SQL by hand) keeps it
 *   exact in the writing transaction. A count is the sum of its rows: each writing connection adds
 *   to one of 16 slots (`pg_backend_pid() % 16`), so concurrent creations of one user do not queue
 *   on one counter row. INSERT and DELETE triggers are per statement (one upsert per user and kind
 *   of a batch, through the transition table: ~30 µs on a one-link INSERT); a change of owner or
 *   kind is per row, and only fires when one changes. A deletion of the user (cascading to its codes) leaves no row behind.
 * - `link_stats_total.user_id`, `.kind` and `link_stats_total_rank_idx`: `order=click` reads the
 *   user's clicked links from an index (clicks, then newest first), the others from links_user_idx.
 *   A BEFORE INSERT trigger sets them from the link when the fold first writes its total (the fold's
 *   SQL is unchanged), and a change of a link's owner moves them.
 * - `links_search_trgm`: a trigram GIN index on url, title and alias together, for `q` searches
 *   (`ILIKE '%word%'`). The list's query tests this expression first (a superset: whatever one of the
 *   fields contains, their concatenation contains), then each field for the exact semantics.
 */
export class ListScale1732300020000 implements MigrationInterface {
  name = 'ListScale1732300020000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE EXTENSION IF NOT EXISTS pg_trgm`);
    await q.query(`
      CREATE TABLE link_counts (
        user_id int NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        kind varchar(8) NOT NULL,
        slot smallint NOT NULL,
        n bigint NOT NULL,
        PRIMARY KEY (user_id, kind, slot)
      )`);
    // adds `delta` to (user, kind) in this connection's slot; skips a user being deleted (the
    // rare change of a code's owner or kind)
    await q.query(`
      CREATE FUNCTION link_counts_add(p_user int, p_kind varchar, p_delta bigint) RETURNS void
      LANGUAGE sql AS $$
        INSERT INTO link_counts AS c (user_id, kind, slot, n)
        SELECT p_user, p_kind, pg_backend_pid() % 16, p_delta
         WHERE p_kind IS NOT NULL AND EXISTS (SELECT 1 FROM users u WHERE u.id = p_user)
        ON CONFLICT (user_id, kind, slot) DO UPDATE SET n = c.n + EXCLUDED.n
      $$`);
    // INSERT and DELETE: one upsert per user and kind of the statement, planned once per
    // connection (plpgsql caches it; a SQL-language function would be planned on every call)
    const upsert = `ON CONFLICT (user_id, kind, slot) DO UPDATE SET n = c.n + EXCLUDED.n`;
    await q.query(`
      CREATE FUNCTION links_count_rows() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          INSERT INTO link_counts AS c (user_id, kind, slot, n)
          SELECT user_id, kind, pg_backend_pid() % 16, count(*) FROM new_rows
           GROUP BY user_id, kind ORDER BY user_id, kind
          ${upsert};
        ELSIF TG_OP = 'DELETE' THEN
          INSERT INTO link_counts AS c (user_id, kind, slot, n)
          SELECT o.user_id, o.kind, pg_backend_pid() % 16, -count(*) FROM old_rows o
           WHERE EXISTS (SELECT 1 FROM users u WHERE u.id = o.user_id)
           GROUP BY o.user_id, o.kind ORDER BY o.user_id, o.kind
          ${upsert};
        ELSIF TG_OP = 'UPDATE' THEN
          PERFORM link_counts_add(OLD.user_id, OLD.kind, -1);
          PERFORM link_counts_add(NEW.user_id, NEW.kind, 1);
          UPDATE link_stats_total SET user_id = NEW.user_id, kind = NEW.kind WHERE link_id = NEW.id;
        ELSE
          DELETE FROM link_counts WHERE kind IN ('link', 'bio', 'qr');
        END IF;
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE FUNCTION qr_codes_count_rows() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          INSERT INTO link_counts AS c (user_id, kind, slot, n)
          SELECT user_id, k, pg_backend_pid() % 16, count(*)
            FROM new_rows, LATERAL (VALUES ('qrcode'), (CASE WHEN type = 'link' THEN 'qr-link' END)) v(k)
           WHERE k IS NOT NULL GROUP BY user_id, k ORDER BY user_id, k
          ${upsert};
        ELSIF TG_OP = 'DELETE' THEN
          INSERT INTO link_counts AS c (user_id, kind, slot, n)
          SELECT o.user_id, k, pg_backend_pid() % 16, -count(*)
            FROM old_rows o, LATERAL (VALUES ('qrcode'), (CASE WHEN o.type = 'link' THEN 'qr-link' END)) v(k)
           WHERE k IS NOT NULL AND EXISTS (SELECT 1 FROM users u WHERE u.id = o.user_id)
           GROUP BY o.user_id, k ORDER BY o.user_id, k
          ${upsert};
        ELSIF TG_OP = 'UPDATE' THEN
          PERFORM link_counts_add(OLD.user_id, 'qrcode', -1);
          PERFORM link_counts_add(NEW.user_id, 'qrcode', 1);
          IF OLD.type = 'link' THEN PERFORM link_counts_add(OLD.user_id, 'qr-link', -1); END IF;
          IF NEW.type = 'link' THEN PERFORM link_counts_add(NEW.user_id, 'qr-link', 1); END IF;
        ELSE
          DELETE FROM link_counts WHERE kind IN ('qrcode', 'qr-link');
        END IF;
        RETURN NULL;
      END $$`);
    for (const [table, fn, moved] of [
      ['links', 'links_count_rows', 'OLD.user_id <> NEW.user_id OR OLD.kind <> NEW.kind'],
      ['qr_codes', 'qr_codes_count_rows', 'OLD.user_id <> NEW.user_id OR OLD.type <> NEW.type'],
    ]) {
      await q.query(`
        CREATE TRIGGER ${table}_count_insert AFTER INSERT ON ${table}
          REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION ${fn}()`);
      await q.query(`
        CREATE TRIGGER ${table}_count_delete AFTER DELETE ON ${table}
          REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION ${fn}()`);
      await q.query(`
        CREATE TRIGGER ${table}_count_move AFTER UPDATE ON ${table}
          FOR EACH ROW WHEN (${moved}) EXECUTE FUNCTION ${fn}()`);
      await q.query(`
        CREATE TRIGGER ${table}_count_truncate AFTER TRUNCATE ON ${table}
          FOR EACH STATEMENT EXECUTE FUNCTION ${fn}()`);
    }
    // the counts of the rows already there (no writer runs between this and the commit)
    await q.query(`LOCK TABLE links, qr_codes IN SHARE MODE`);
    await q.query(`
      INSERT INTO link_counts (user_id, kind, slot, n)
      SELECT user_id, kind, 0, count(*) FROM links GROUP BY user_id, kind
      UNION ALL
      SELECT user_id, 'qr-link', 0, count(*) FROM qr_codes WHERE type = 'link' GROUP BY user_id
      UNION ALL
      SELECT user_id, 'qrcode', 0, count(*) FROM qr_codes GROUP BY user_id`);
    // order=click from an index: a link's total carries its owner and kind (set when the fold
    // first inserts it, moved with the link), indexed by clicks for the links that have any
    await q.query(
      `ALTER TABLE link_stats_total ADD COLUMN user_id int, ADD COLUMN kind varchar(8)`,
    );
    await q.query(`
      CREATE FUNCTION link_stats_total_owner() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        SELECT l.user_id, l.kind INTO NEW.user_id, NEW.kind FROM links l WHERE l.id = NEW.link_id;
        RETURN NEW;
      END $$`);
    await q.query(`
      CREATE TRIGGER link_stats_total_owner BEFORE INSERT ON link_stats_total
        FOR EACH ROW WHEN (NEW.user_id IS NULL) EXECUTE FUNCTION link_stats_total_owner()`);
    await q.query(`LOCK TABLE link_stats_total IN SHARE MODE`);
    await q.query(`
      UPDATE link_stats_total t SET user_id = l.user_id, kind = l.kind FROM links l WHERE l.id = t.link_id`);
    await q.query(`
      CREATE INDEX link_stats_total_rank_idx ON link_stats_total (user_id, kind, clicks DESC, link_id DESC)
        WHERE clicks > 0`);
    await q.query(`
      CREATE INDEX links_search_trgm ON links
        USING gin ((url || ' ' || title::text || ' ' || alias::text) gin_trgm_ops)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS links_search_trgm`);
    await q.query(`DROP TRIGGER IF EXISTS link_stats_total_owner ON link_stats_total`);
    await q.query(`DROP FUNCTION IF EXISTS link_stats_total_owner()`);
    await q.query(
      `ALTER TABLE link_stats_total DROP COLUMN IF EXISTS user_id, DROP COLUMN IF EXISTS kind`,
    );
    for (const table of ['links', 'qr_codes']) {
      for (const t of ['insert', 'delete', 'move', 'truncate'])
        await q.query(`DROP TRIGGER IF EXISTS ${table}_count_${t} ON ${table}`);
    }
    await q.query(`DROP FUNCTION IF EXISTS qr_codes_count_rows()`);
    await q.query(`DROP FUNCTION IF EXISTS links_count_rows()`);
    await q.query(`DROP FUNCTION IF EXISTS link_counts_add(int, varchar, bigint)`);
    await q.query(`DROP TABLE IF EXISTS link_counts`);
  }
}
