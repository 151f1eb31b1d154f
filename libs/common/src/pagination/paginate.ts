import { FindOptionsWhere, In, ObjectLiteral, Repository, SelectQueryBuilder } from 'typeorm';

import { Paginated } from '../http/envelope';
import { ListBudget } from './list-budget';
import { PageQueryDto } from './page-query.dto';

export interface PageRequest {
  limit: number;
  page: number;
  offset: number;
}

export interface PageDefaults {
  limit: number;
  max: number;
}

export const LIST_DEFAULTS: PageDefaults = { limit: 15, max: 100 };

/** Applies the list defaults: limit 15 (clamped to 100), page 1 (docs/api-conventions.md). */
export function pageRequest(
  query: PageQueryDto,
  defaults: PageDefaults = LIST_DEFAULTS,
): PageRequest {
  const limit = Math.min(query.limit ?? defaults.limit, defaults.max);
  const page = query.page ?? 1;
  return { limit, page, offset: (page - 1) * limit };
}

/**
 * Runs a list query newest first (`<alias>.id DESC`) for one page and wraps it for the list
 * envelope under `key`. `map` turns each row into its documented shape.
 */
export async function paginate<T extends ObjectLiteral, R>(
  qb: SelectQueryBuilder<T>,
  query: PageQueryDto,
  key: string,
  map: (row: T) => R | Promise<R>,
  defaults: PageDefaults = LIST_DEFAULTS,
): Promise<Paginated<R>> {
  const { limit, page, offset } = pageRequest(query, defaults);
  const [rows, total] = await qb
    .orderBy(`${qb.alias}.id`, 'DESC')
    .skip(offset)
    .take(limit)
    .getManyAndCount();
  const items = await Promise.all(rows.map(map));
  return new Paginated(key, items, total, limit, page);
}

/**
 * One page of a user's own rows of `repo` (those whose `userId` is theirs), newest first, wrapped
 * as `paginate` wraps it.
 */
export function paginateOwn<T extends ObjectLiteral & { userId: number }, R>(
  repo: Repository<T>,
  userId: number,
  query: PageQueryDto,
  key: string,
  map: (row: T) => R | Promise<R>,
): Promise<Paginated<R>> {
  const qb = repo.createQueryBuilder('own').where('own.userId = :userId', { userId });
  return paginate(qb, query, key, map);
}

/**
 * Like paginateOwn, for tables a user may have without bound (campaigns, channels): the total is
 * the user's maintained count of `kind` in `link_counts` (kept by triggers, migration
 * OwnedCounts) and the page's ids an index-only scan of the table's `(user_id, id)` index to the
 * page's offset, in one statement under the lists' statement timeout (ListBudget, light); then
 * only the page's rows are read.
 */
export async function paginateCounted<T extends ObjectLiteral & { id: number; userId: number }, R>(
  budget: ListBudget,
  repo: Repository<T>,
  kind: string,
  userId: number,
  query: PageQueryDto,
  key: string,
  map: (row: T) => R | Promise<R>,
): Promise<Paginated<R>> {
  const { limit, page, offset } = pageRequest(query);
  const table = repo.metadata.tableName;
  const { total, ids } = await budget.run(
    userId,
    'The list',
    async (em) => {
      const [row]: Array<{ total: number; ids: number[] }> = await em.query(
        `SELECT (SELECT COALESCE(sum(n), 0) FROM link_counts WHERE user_id = $1 AND kind = $2)::int AS total,
              ARRAY(SELECT id FROM ${table} WHERE user_id = $1 ORDER BY id DESC OFFSET $3 LIMIT $4) AS ids`,
        [userId, kind, offset, limit],
      );
      return row;
    },
    { light: true },
  );
  const rows = ids.length
    ? await repo.findBy({ id: In(ids), userId } as unknown as FindOptionsWhere<T>)
    : [];
  const byId = new Map(rows.map((r) => [r.id, r]));
  const ordered = ids.map((id) => byId.get(id)).filter((r): r is T => r !== undefined);
  return new Paginated(key, await Promise.all(ordered.map(map)), total, limit, page);
}
