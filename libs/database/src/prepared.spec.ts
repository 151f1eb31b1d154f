import { DataSource, EntityManager, QueryFailedError } from 'typeorm';

import { prepared, queryPrepared } from './prepared';

/** A pg client or pool recording what it was asked, answering `rows` or failing with `error`. */
function pgClient(rows: unknown[], error?: Error) {
  const asked: Array<{ name?: string; text: string; values: unknown[] }> = [];
  return {
    asked,
    query: async (q: { name?: string; text: string; values: unknown[] }) => {
      asked.push(q);
      if (error) throw error;
      return { rows };
    },
  };
}

const dataSource = (pool: object) => ({ driver: { master: pool } }) as unknown as DataSource;

describe('prepared statements (queryPrepared)', () => {
  it('sends the statement under its name on the pool, and answers its rows', async () => {
    const pool = pgClient([{ id: 1 }]);
    const statement = prepared('spec_pool', 'SELECT $1::int AS id');
    await expect(queryPrepared(dataSource(pool), statement, [1])).resolves.toEqual([{ id: 1 }]);
    expect(pool.asked).toEqual([{ name: 'spec_pool', text: 'SELECT $1::int AS id', values: [1] }]);
  });

  it("runs on a transaction's connection when the manager holds one, not on the pool", async () => {
    const pool = pgClient([]);
    const connection = pgClient([{ n: 2 }]);
    const em = {
      queryRunner: { isReleased: false, connect: async () => connection },
    } as unknown as EntityManager;
    const statement = prepared('spec_tx', 'SELECT 2 AS n');
    await expect(queryPrepared(dataSource(pool), statement, [], em)).resolves.toEqual([{ n: 2 }]);
    expect(pool.asked).toEqual([]);
    expect(connection.asked.map((q) => q.name)).toEqual(['spec_tx']);
    // a released runner (the transaction is over): the pool
    const released = { queryRunner: { isReleased: true } } as unknown as EntityManager;
    await queryPrepared(dataSource(pool), statement, [], released);
    expect(pool.asked.map((q) => q.name)).toEqual(['spec_tx']);
  });

  it("fails as DataSource.query does: a QueryFailedError carrying the driver's error", async () => {
    const cause = Object.assign(new Error('duplicate key'), { code: '23505' });
    const failing = queryPrepared(dataSource(pgClient([], cause)), { text: 'SELECT 1' }, []);
    await expect(failing).rejects.toBeInstanceOf(QueryFailedError);
    await expect(failing).rejects.toMatchObject({ driverError: cause, code: '23505' });
  });

  it('a name goes with one text: defining it again with another throws at once', () => {
    const first = prepared('spec_once', 'SELECT 1');
    expect(prepared('spec_once', 'SELECT 1')).toEqual(first);
    expect(() => prepared('spec_once', 'SELECT 2')).toThrow(/spec_once/);
  });
});
