import { DataSource, EntityManager } from 'typeorm';

import { AppConfig } from '@app/config';
import { ReadReplicas } from '@app/database';

import { ServiceUnavailableError } from '../http/errors';
import { ListBudget } from './list-budget';

/**
 * A budget whose every statement Postgres cancels for its statement_timeout (57014); the
 * transaction's own statements (BEGIN with its limits, ROLLBACK) pass.
 */
function cancelling(): ListBudget {
  const query = async (sql: string) => {
    if (sql.startsWith('BEGIN') || sql === 'ROLLBACK' || sql === 'COMMIT') return [];
    throw Object.assign(new Error('canceling statement due to statement timeout'), {
      code: '57014',
    });
  };
  const manager = { queryRunner: undefined, query } as unknown as EntityManager;
  const runner = { query, manager: { query }, release: async () => undefined };
  const config = {
    LIST_QUERIES: 4,
    DB_POOL_SIZE: 10,
    LIST_QUERIES_PER_USER: 2,
    LIST_QUERY_MS: 2000,
  } as AppConfig;
  const replicas = { read: (fn: (em: EntityManager) => Promise<unknown>) => fn(manager as never) };
  return new ListBudget(
    { manager, createQueryRunner: () => runner } as unknown as DataSource,
    config,
    replicas as unknown as ReadReplicas,
  );
}

describe('ListBudget: a statement past LIST_QUERY_MS', () => {
  const work = (em: EntityManager) => em.query('SELECT 1');

  it.each([{}, { light: true }, { replica: true }])(
    'is a 503 naming what did not finish and the budget (%o)',
    async (options) => {
      const err = await cancelling()
        .run(1, 'The list', work, options)
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ServiceUnavailableError);
      expect((err as Error).message).toBe('The list did not finish within its 2000 ms budget');
    },
  );

  it('adds the hint: what the caller can do to stay within it', async () => {
    const err = await cancelling()
      .run(1, 'The audit log', work, { replica: true, hint: 'narrow from and to' })
      .catch((e: unknown) => e);
    expect((err as Error).message).toBe(
      'The audit log did not finish within its 2000 ms budget: narrow from and to',
    );
  });
});
