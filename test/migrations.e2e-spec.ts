import { Client } from 'pg';

import { dropDatabase, runMigrations } from '../libs/database/src/data-source';
import { MIGRATIONS } from '../libs/database/src/migrations';

/**
 * Migrations as replicas of a rollout run them: several processes at once on a database that
 * does not exist yet.
 */
describe('migrations', () => {
  const url = (() => {
    const u = new URL(process.env.DATABASE_URL as string);
    u.pathname = `/${u.pathname.slice(1)}_mig`;
    return u.toString();
  })();

  afterAll(() => dropDatabase(url));

  it('three processes migrating one new database at once: the first applies every migration, the others find none pending', async () => {
    await dropDatabase(url);
    const applied = await Promise.all([runMigrations(url), runMigrations(url), runMigrations(url)]);
    const names = MIGRATIONS.map((m) => m.name);
    expect(applied.map((a) => a.length).sort((a, b) => a - b)).toEqual([0, 0, names.length]);
    expect(applied.find((a) => a.length)).toEqual(names);

    const db = new Client({ connectionString: url });
    await db.connect();
    try {
      const { rows } = await db.query(
        `SELECT c.relname, i.indisvalid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
          WHERE c.relname IN ('links_search_trgm', 'links_search_user_trgm', 'links_search_keys')`,
      );
      // built concurrently while the others waited, valid; the search indexes before it are gone
      expect(rows).toEqual([{ relname: 'links_search_keys', indisvalid: true }]);
      // the search keys' functions keep their plans per connection (PL/pgSQL; a SQL function
      // with a subquery is planned again by every INSERT into links), and still name pg_trgm's
      // schema: with an empty search path (a pg_dump restore) they answer and the index rebuilds
      const { rows: fns } = await db.query(
        `SELECT p.proname, l.lanname FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang
          WHERE p.proname IN ('search_keys', 'search_query_keys') ORDER BY p.proname`,
      );
      expect(fns).toEqual([
        { proname: 'search_keys', lanname: 'plpgsql' },
        { proname: 'search_query_keys', lanname: 'plpgsql' },
      ]);
      await db.query(`SET search_path = ''`);
      const { rows: keys } = await db.query(
        `SELECT public.search_keys(7, 'garden gnome') AS text, public.search_query_keys(7, 'arde') AS query`,
      );
      const owner = (k: string) => BigInt(k) >> 32n;
      expect(keys[0].text.length).toBeGreaterThan(3);
      expect(keys[0].text.map(owner)).toEqual(keys[0].text.map(() => 7n));
      // 'arde' holds two trigrams inside a word, both among the text's
      expect(keys[0].query).toHaveLength(2);
      expect(keys[0].text).toEqual(expect.arrayContaining(keys[0].query));
      await db.query('REINDEX INDEX public.links_search_keys');
      await db.query('RESET search_path');
      expect(Number((await db.query('SELECT count(*) FROM migrations')).rows[0].count)).toBe(
        names.length,
      );
      // nothing is left holding the lock
      const { rows: locks } = await db.query(
        `SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
      );
      expect(locks).toEqual([]);
    } finally {
      await db.end();
    }
  }, 60_000);

  it('run again, nothing is pending', async () => {
    expect(await runMigrations(url)).toEqual([]);
  });
});
