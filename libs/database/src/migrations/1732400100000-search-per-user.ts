import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `GET /api/urls?q=` reads only the searching user's links.
 *
 * The trigram index of ListScale (`links_search_trgm`) held every user's links: a word found in
 * 1 000 titles across the table made each search read those 1 000 rows, whoever owned them, and
 * keep the user's; a user's search cost grew with other tenants' data. `links_search_user_trgm`
 * puts the owner in the same GIN index (btree_gin: `user_id` as a GIN key beside the trigrams), so
 * the index answers "this user's links whose text has these trigrams" and only those rows are read.
 * It is partial (`kind = 'link'`: the list searches links only), and replaces the old index.
 *
 * Built CONCURRENTLY, outside a transaction, so that links keep being written during a build that
 * takes minutes on a large table; a build that failed half way leaves an invalid index, dropped
 * and built again when the migration runs again. (Migrations take turns across processes:
 * `runMigrations`.) btree_gin is a trusted extension (PostgreSQL 13+), like pg_trgm.
 */
export class SearchPerUser1732400100000 implements MigrationInterface {
  name = 'SearchPerUser1732400100000';
  transaction = false;

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE EXTENSION IF NOT EXISTS btree_gin`);
    await q.query(`DROP INDEX CONCURRENTLY IF EXISTS links_search_user_trgm`);
    await q.query(`
      CREATE INDEX CONCURRENTLY links_search_user_trgm ON links
        USING gin (user_id, (url || ' ' || title::text || ' ' || alias::text) gin_trgm_ops)
        WHERE kind = 'link'`);
    await q.query(`DROP INDEX CONCURRENTLY IF EXISTS links_search_trgm`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX CONCURRENTLY IF EXISTS links_search_trgm`);
    await q.query(`
      CREATE INDEX CONCURRENTLY links_search_trgm ON links
        USING gin ((url || ' ' || title::text || ' ' || alias::text) gin_trgm_ops)`);
    await q.query(`DROP INDEX CONCURRENTLY IF EXISTS links_search_user_trgm`);
  }
}
