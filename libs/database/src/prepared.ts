import { DataSource, EntityManager, QueryFailedError } from 'typeorm';
import { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import { PostgresQueryRunner } from 'typeorm/driver/postgres/PostgresQueryRunner';

/** A statement, and the name it is prepared under on each connection (none: sent unnamed). */
export interface PreparedStatement {
  text: string;
  name?: string;
}

/** A pg client's or pool's query with a named statement (`{name, text, values}`). */
interface PgQueryable {
  query(config: {
    name?: string;
    text: string;
    values: unknown[];
  }): Promise<{ rows: Array<Record<string, unknown>> }>;
}

/** The text each name was defined with in this process (`prepared`). */
const defined = new Map<string, string>();

/**
 * A named statement for `queryPrepared`. A name goes with one text for the life of the process:
 * pg refuses to run a name a connection prepared with another text, so a second definition with
 * another text throws here, when its module loads, rather than on some connection later.
 */
export function prepared(name: string, text: string): PreparedStatement {
  const before = defined.get(name);
  if (before !== undefined && before !== text)
    throw new Error(`the prepared statement ${name} is defined twice with different texts`);
  defined.set(name, text);
  return { name, text };
}

/**
 * Runs a statement as a named prepared statement: Postgres parses and plans it once per pooled
 * connection, where `DataSource.query` sends the whole text to be parsed and planned on every
 * call (for a long statement such as the link cache's RESOLVE_LINK_SQL, most of its cost; see
 * docs/performance.md#scale). On `em`'s connection when it holds one (a transaction), else on
 * the primary's pool. A failure is the QueryFailedError `DataSource.query` throws, which
 * `pg-errors` reads.
 */
export async function queryPrepared<T = Record<string, unknown>>(
  db: DataSource,
  statement: PreparedStatement,
  values: unknown[],
  em?: EntityManager,
): Promise<T[]> {
  const runner = em?.queryRunner;
  const client: PgQueryable =
    runner && !runner.isReleased
      ? ((await (runner as PostgresQueryRunner).connect()) as PgQueryable)
      : ((db.driver as PostgresDriver).master as PgQueryable);
  try {
    const result = await client.query({ name: statement.name, text: statement.text, values });
    return result.rows as T[];
  } catch (err) {
    throw new QueryFailedError(statement.text, values, err as Error);
  }
}
