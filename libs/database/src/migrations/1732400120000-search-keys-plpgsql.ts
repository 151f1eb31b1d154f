import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The search keys' functions (SearchKeys) in PL/pgSQL, with the same bodies and results.
 *
 * A SQL function whose body holds a subquery is never inlined, and Postgres parses and plans its
 * body again for every statement that calls it. `search_keys` is the expression of the index
 * `links_search_keys`, so every single-row `INSERT` into `links` (a link's creation) planned it:
 * about 120 µs of Postgres CPU a creation here, of ~210 µs the index cost in all (pgbench, one
 * client, prepared single-row inserts). A PL/pgSQL function keeps its statement's plan for the
 * connection's life. The results are the same arrays, so the index stays valid as it is: no
 * rebuild. `search_query_keys` goes the same way (a search plans it once per request otherwise).
 */
export class SearchKeysPlpgsql1732400120000 implements MigrationInterface {
  name = 'SearchKeysPlpgsql1732400120000';

  async up(q: QueryRunner): Promise<void> {
    const schema = await trgmSchema(q);
    await q.query(`
      CREATE OR REPLACE FUNCTION search_keys(owner int, txt text) RETURNS int8[]
        LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE COST 1000 AS $$
        BEGIN
          RETURN ARRAY(
            SELECT DISTINCT (owner::int8 << 32) | (hashtext(t)::int8 & 4294967295)
              FROM unnest(${schema}.show_trgm(txt)) t
             WHERE position(' ' IN t) = 0);
        END
        $$`);
    await q.query(`
      CREATE OR REPLACE FUNCTION search_query_keys(owner int, keyword text) RETURNS int8[]
        LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
        BEGIN
          RETURN ARRAY(
            SELECT DISTINCT (owner::int8 << 32) | (hashtext(t)::int8 & 4294967295)
              FROM unnest(${schema}.show_trgm(keyword)) t
             WHERE t NOT IN (
               SELECT unnest(${schema}.show_trgm(substr(keyword, i, 1)) || ${schema}.show_trgm(substr(keyword, i, 2)))
                 FROM generate_series(1, length(keyword)) i));
        END
        $$`);
  }

  async down(q: QueryRunner): Promise<void> {
    const schema = await trgmSchema(q);
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
  }
}

/** pg_trgm's schema, quoted: the functions name it (an index expression may run with an empty search path). */
async function trgmSchema(q: QueryRunner): Promise<string> {
  const [{ schema }] = await q.query(
    `SELECT quote_ident(n.nspname) AS schema FROM pg_extension e
       JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_trgm'`,
  );
  return schema;
}
