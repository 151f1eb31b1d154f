import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `GET /api/urls?q=` costs the same for a user with 15 000 links as for one with 1 000 000, and
 * nothing for other tenants' data.
 *
 * `links_search_user_trgm` (SearchPerUser) keyed the GIN index by the owner and by each trigram
 * apart: a search walked the owner's posting list (every link of the user) beside the trigrams'
 * (every user's links with them). At 10 000 000 links, for the user owning 1 000 000, the index
 * read 521 pages for a word found in 100 of the user's titles (3.2 ms), against 319 pages for the
 * same user owning 15 000 (1.4 ms), and held every trigram's posting list of every user.
 *
 * `search_keys(user, text)` makes each key the pair (owner, trigram), one 64-bit number: the owner
 * in the high 32 bits, the trigram's hash in the low ones. Its posting list is that user's links
 * having that trigram, so a search reads the user's matches, whatever the user's size and the
 * table's. The trigrams are pg_trgm's (`show_trgm`: lower-cased, words of letters and digits; the
 * ones that visibly hold a space, a word's padded start or end, are left out of the index).
 * A keyword's keys, `search_query_keys(user, keyword)`, are its trigrams inside a word only: a
 * keyword found in the middle of a word does not share its padded ones with the text. pg_trgm
 * shows a trigram of multibyte characters as a hash, padded or not, so the padded ones are found
 * as those of the keyword's single characters and pairs (`show_trgm('ab')`: `  a`, ` ab`, `ab `),
 * which covers every padding a word can get. A keyword without such a trigram ('ab', 'a.b', '本')
 * has no keys: the list then reads the user's links. A hash collision only adds a candidate: the
 * list rechecks every row with ILIKE. At 10 000 000 links, the index read 17 pages for the word
 * (0.1 ms) for the user owning 1 000 000, and 13 for the same user owning 15 000 of 24 000.
 *
 * Built CONCURRENTLY outside a transaction, as SearchPerUser (an invalid index from a failed
 * build is dropped and built again), then the old index goes.
 */
export class SearchKeys1732400110000 implements MigrationInterface {
  name = 'SearchKeys1732400110000';
  transaction = false;

  async up(q: QueryRunner): Promise<void> {
    // pg_trgm's schema named in the functions: an index expression is also evaluated where the
    // search path is empty (a pg_dump restore builds indexes with search_path = '')
    const [{ schema }] = await q.query(
      `SELECT quote_ident(n.nspname) AS schema FROM pg_extension e
         JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_trgm'`,
    );
    await q.query(`
      CREATE OR REPLACE FUNCTION search_keys(owner int, txt text) RETURNS int8[]
        LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE COST 1000 AS $$
          SELECT ARRAY(
            SELECT DISTINCT (owner::int8 << 32) | (hashtext(t)::int8 & 4294967295)
              FROM unnest(${schema}.show_trgm(txt)) t
             WHERE position(' ' IN t) = 0)
        $$`);
    await q.query(`
      CREATE OR REPLACE FUNCTION search_query_keys(owner int, keyword text) RETURNS int8[]
        LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
          SELECT ARRAY(
            SELECT DISTINCT (owner::int8 << 32) | (hashtext(t)::int8 & 4294967295)
              FROM unnest(${schema}.show_trgm(keyword)) t
             WHERE t NOT IN (
               SELECT unnest(${schema}.show_trgm(substr(keyword, i, 1)) || ${schema}.show_trgm(substr(keyword, i, 2)))
                 FROM generate_series(1, length(keyword)) i))
        $$`);
    await q.query(`DROP INDEX CONCURRENTLY IF EXISTS links_search_keys`);
    await q.query(`
      CREATE INDEX CONCURRENTLY links_search_keys ON links
        USING gin (search_keys(user_id, (url || ' ' || title::text || ' ' || alias::text)))
        WHERE kind = 'link'`);
    await q.query(`DROP INDEX CONCURRENTLY IF EXISTS links_search_user_trgm`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX CONCURRENTLY IF EXISTS links_search_user_trgm`);
    await q.query(`
      CREATE INDEX CONCURRENTLY links_search_user_trgm ON links
        USING gin (user_id, (url || ' ' || title::text || ' ' || alias::text) gin_trgm_ops)
        WHERE kind = 'link'`);
    await q.query(`DROP INDEX CONCURRENTLY IF EXISTS links_search_keys`);
    await q.query(`DROP FUNCTION IF EXISTS search_keys(int, text)`);
    await q.query(`DROP FUNCTION IF EXISTS search_query_keys(int, text)`);
  }
}
