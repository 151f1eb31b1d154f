import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `GET /api/audit` without counting the workspace's entries per request (every change of a
 * workspace writes one, for as long as the plan's retention keeps them: millions for a busy one):
 *
 * - `audit_counts`: each workspace's number of entries, kept by triggers on `audit_log` in the
 *   writing transaction, whoever writes or deletes (AuditLog's writes and `withdraw`, the worker's
 *   retention `prune`, SQL by hand). As `link_counts`: per statement for INSERT and DELETE (one
 *   upsert per workspace of the statement: a prune batch of 5 000 entries is one per workspace),
 *   per row for a change of workspace; each writing connection adds to one of 16 slots
 *   (`pg_backend_pid() % 16`), so concurrent changes of one busy workspace do not queue on one
 *   counter row. A deletion of the workspace's owner (cascading to its entries) skips the counts,
 *   which go with the owner.
 * - `audit_log_workspace_created_idx` (workspace, created_at) with the id, action and actor: a
 *   filtered list (`from`, `to`, `action`, `actor`) still counts its matches exactly; with `from`
 *   / `to` from this index alone (no row of the table read), only the range's entries.
 *
 * Changes wait while this runs: the backfill holds `audit_log` (a count grouped by workspace,
 * then the index; 1 200 000 entries: 3–6 s, docs/performance.md).
 *
 * The unfiltered list reads the count and takes its page's ids from `audit_log_workspace_idx`
 * (workspace, id DESC): it costs the page's depth, not the workspace's entries.
 */
export class AuditCounts1732400080000 implements MigrationInterface {
  name = 'AuditCounts1732400080000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE audit_counts (
        workspace_id int NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        slot smallint NOT NULL,
        n bigint NOT NULL,
        PRIMARY KEY (workspace_id, slot)
      )`);
    const upsert = `ON CONFLICT (workspace_id, slot) DO UPDATE SET n = c.n + EXCLUDED.n`;
    await q.query(`
      CREATE FUNCTION audit_log_count_rows() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          INSERT INTO audit_counts AS c (workspace_id, slot, n)
          SELECT workspace_id, pg_backend_pid() % 16, count(*) FROM new_rows
           GROUP BY workspace_id ORDER BY workspace_id
          ${upsert};
        ELSIF TG_OP = 'DELETE' THEN
          INSERT INTO audit_counts AS c (workspace_id, slot, n)
          SELECT o.workspace_id, pg_backend_pid() % 16, -count(*) FROM old_rows o
           WHERE EXISTS (SELECT 1 FROM users u WHERE u.id = o.workspace_id)
           GROUP BY o.workspace_id ORDER BY o.workspace_id
          ${upsert};
        ELSIF TG_OP = 'UPDATE' THEN
          INSERT INTO audit_counts AS c (workspace_id, slot, n)
          SELECT u.id, pg_backend_pid() % 16, d.n
            FROM (VALUES (OLD.workspace_id, -1), (NEW.workspace_id, 1)) d(id, n)
            JOIN users u ON u.id = d.id
           ORDER BY u.id
          ${upsert};
        ELSE
          DELETE FROM audit_counts;
        END IF;
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE TRIGGER audit_log_count_insert AFTER INSERT ON audit_log
        REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION audit_log_count_rows()`);
    await q.query(`
      CREATE TRIGGER audit_log_count_delete AFTER DELETE ON audit_log
        REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION audit_log_count_rows()`);
    await q.query(`
      CREATE TRIGGER audit_log_count_move AFTER UPDATE ON audit_log
        FOR EACH ROW WHEN (OLD.workspace_id <> NEW.workspace_id) EXECUTE FUNCTION audit_log_count_rows()`);
    await q.query(`
      CREATE TRIGGER audit_log_count_truncate AFTER TRUNCATE ON audit_log
        FOR EACH STATEMENT EXECUTE FUNCTION audit_log_count_rows()`);
    // the counts of the entries already there (no writer runs between this and the commit)
    await q.query(`LOCK TABLE audit_log IN SHARE MODE`);
    await q.query(`
      INSERT INTO audit_counts (workspace_id, slot, n)
      SELECT workspace_id, 0, count(*) FROM audit_log GROUP BY workspace_id`);
    await q.query(`
      CREATE INDEX audit_log_workspace_created_idx ON audit_log (workspace_id, created_at)
        INCLUDE (id, action, actor_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS audit_log_workspace_created_idx`);
    for (const t of ['insert', 'delete', 'move', 'truncate'])
      await q.query(`DROP TRIGGER IF EXISTS audit_log_count_${t} ON audit_log`);
    await q.query(`DROP FUNCTION IF EXISTS audit_log_count_rows()`);
    await q.query(`DROP TABLE IF EXISTS audit_counts`);
  }
}
