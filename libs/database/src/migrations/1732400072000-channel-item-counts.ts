import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `GET /api/channel/:id` without counting or sorting the channel's items per request (a channel
 * may hold every link of a user: url/add takes `channel`):
 *
 * - `channel_items_channel_idx` (channel, id): the page's ids, newest assignment first, from an
 *   index scan to the page's offset instead of a sort of all the channel's items.
 * - `channel_item_counts`: each channel's number of items, kept by triggers on `channel_items`
 *   in the writing transaction (per statement, 16 slots per channel, as `link_counts`; skipped
 *   for a channel being deleted, whose counts go with it).
 * - An item is listed only while its link, bio page or QR code exists and still belongs to the
 *   item's owner with the item's kind; so that the count is the listed items, triggers remove an
 *   item when that stops being true (a link or QR code deleted by any writer, including a user's
 *   deletion, or given to another owner or kind), and the items already dangling are removed here.
 */
export class ChannelItemCounts1732400072000 implements MigrationInterface {
  name = 'ChannelItemCounts1732400072000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX channel_items_channel_idx ON channel_items (channel_id, id DESC)`);
    await q.query(`
      CREATE TABLE channel_item_counts (
        channel_id int NOT NULL REFERENCES channels(id) ON DELETE CASCADE,
        slot smallint NOT NULL,
        n bigint NOT NULL,
        PRIMARY KEY (channel_id, slot)
      )`);
    const upsert = `ON CONFLICT (channel_id, slot) DO UPDATE SET n = c.n + EXCLUDED.n`;
    await q.query(`
      CREATE FUNCTION channel_items_count_rows() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          INSERT INTO channel_item_counts AS c (channel_id, slot, n)
          SELECT channel_id, pg_backend_pid() % 16, count(*) FROM new_rows
           GROUP BY channel_id ORDER BY channel_id
          ${upsert};
        ELSIF TG_OP = 'DELETE' THEN
          INSERT INTO channel_item_counts AS c (channel_id, slot, n)
          SELECT o.channel_id, pg_backend_pid() % 16, -count(*) FROM old_rows o
           WHERE EXISTS (SELECT 1 FROM channels ch WHERE ch.id = o.channel_id)
           GROUP BY o.channel_id ORDER BY o.channel_id
          ${upsert};
        ELSIF TG_OP = 'UPDATE' THEN
          INSERT INTO channel_item_counts AS c (channel_id, slot, n)
          SELECT ch.id, pg_backend_pid() % 16, d.n
            FROM (VALUES (OLD.channel_id, -1), (NEW.channel_id, 1)) d(id, n)
            JOIN channels ch ON ch.id = d.id
          ${upsert};
        ELSE
          DELETE FROM channel_item_counts;
        END IF;
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE TRIGGER channel_items_count_insert AFTER INSERT ON channel_items
        REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION channel_items_count_rows()`);
    await q.query(`
      CREATE TRIGGER channel_items_count_delete AFTER DELETE ON channel_items
        REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION channel_items_count_rows()`);
    await q.query(`
      CREATE TRIGGER channel_items_count_move AFTER UPDATE ON channel_items
        FOR EACH ROW WHEN (OLD.channel_id <> NEW.channel_id) EXECUTE FUNCTION channel_items_count_rows()`);
    await q.query(`
      CREATE TRIGGER channel_items_count_truncate AFTER TRUNCATE ON channel_items
        FOR EACH STATEMENT EXECUTE FUNCTION channel_items_count_rows()`);

    // items whose link, bio page or QR code goes away (or to another owner or kind) go with it
    await q.query(`
      CREATE FUNCTION channel_items_of_gone() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_TABLE_NAME = 'links' AND TG_OP = 'DELETE' THEN
          DELETE FROM channel_items ci USING old_rows o
           WHERE ci.item_type = CASE o.kind WHEN 'link' THEN 'links' WHEN 'bio' THEN 'bio' END
             AND ci.item_id = o.id;
        ELSIF TG_TABLE_NAME = 'links' THEN
          DELETE FROM channel_items ci
           WHERE ci.item_type = CASE OLD.kind WHEN 'link' THEN 'links' WHEN 'bio' THEN 'bio' END
             AND ci.item_id = OLD.id;
        ELSIF TG_OP = 'DELETE' THEN
          DELETE FROM channel_items ci USING old_rows o
           WHERE ci.item_type = 'qr' AND ci.item_id = o.id;
        ELSE
          DELETE FROM channel_items ci WHERE ci.item_type = 'qr' AND ci.item_id = OLD.id;
        END IF;
        RETURN NULL;
      END $$`);
    for (const [table, moved] of [
      ['links', 'OLD.user_id <> NEW.user_id OR OLD.kind <> NEW.kind'],
      ['qr_codes', 'OLD.user_id <> NEW.user_id OR OLD.link_id <> NEW.link_id'],
    ]) {
      await q.query(`
        CREATE TRIGGER ${table}_channel_items_delete AFTER DELETE ON ${table}
          REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION channel_items_of_gone()`);
      await q.query(`
        CREATE TRIGGER ${table}_channel_items_move AFTER UPDATE ON ${table}
          FOR EACH ROW WHEN (${moved}) EXECUTE FUNCTION channel_items_of_gone()`);
    }

    // no writer runs between this and the commit: the items that dangle go, the rest are counted
    await q.query(`LOCK TABLE channel_items, links, qr_codes IN SHARE ROW EXCLUSIVE MODE`);
    await q.query(`
      DELETE FROM channel_items ci
       WHERE NOT EXISTS (
               SELECT 1 FROM links l
                WHERE ci.item_type IN ('links', 'bio') AND l.id = ci.item_id AND l.user_id = ci.user_id
                  AND l.kind = CASE ci.item_type WHEN 'links' THEN 'link' ELSE 'bio' END)
         AND NOT EXISTS (
               SELECT 1 FROM qr_codes qc
                WHERE ci.item_type = 'qr' AND qc.id = ci.item_id AND qc.user_id = ci.user_id)`);
    await q.query(`DELETE FROM channel_item_counts`);
    await q.query(`
      INSERT INTO channel_item_counts (channel_id, slot, n)
      SELECT channel_id, 0, count(*) FROM channel_items GROUP BY channel_id`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of ['links', 'qr_codes'])
      for (const t of ['delete', 'move'])
        await q.query(`DROP TRIGGER IF EXISTS ${table}_channel_items_${t} ON ${table}`);
    await q.query(`DROP FUNCTION IF EXISTS channel_items_of_gone()`);
    for (const t of ['insert', 'delete', 'move', 'truncate'])
      await q.query(`DROP TRIGGER IF EXISTS channel_items_count_${t} ON channel_items`);
    await q.query(`DROP FUNCTION IF EXISTS channel_items_count_rows()`);
    await q.query(`DROP TABLE IF EXISTS channel_item_counts`);
    await q.query(`DROP INDEX IF EXISTS channel_items_channel_idx`);
  }
}
