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

/** One page of a user's rows read by `countedPage`, newest first, with the maintained total. */
export interface CountedPage<T> {
  rows: T[];
  total: number;
  limit: number;
  page: number;
}

/**
 * One page of a user's own rows of `repo` for tables a user may have without bound (links of a
 * kind, QR codes, campaigns, channels): the total is the user's maintained count of `kind` in
 * `link_counts` (kept by triggers, migrations ListScale and OwnedCounts) and the page's ids an
 * index-only scan of the table's `(user_id[, kind], id)` index to the page's offset, in one
 * statement under the lists' statement timeout (ListBudget); then only the page's rows are read,
 * in the ids' order. `rowKind`: the table's own `kind` column value to keep (`links` holds
 * links, bio pages and QR links). `light`: outside the per-user cap of concurrent lists.
 */
export async function countedPage<T extends ObjectLiteral & { id: number; userId: number }>(
  budget: ListBudget,
  repo: Repository<T>,
  kind: string,
  userId: number,
  query: PageQueryDto,
  o: { rowKind?: string; light?: boolean } = {},
): Promise<CountedPage<T>> {
  const { limit, page, offset } = pageRequest(query);
  const table = repo.metadata.tableName;
  const rowKind = o.rowKind === undefined ? '' : ' AND kind = $5';
  const params: unknown[] = [userId, kind, offset, limit];
  if (o.rowKind !== undefined) params.push(o.rowKind);
  const { total, ids } = await budget.run(
    userId,
    'The list',
    async (em) => {
      const [row]: Array<{ total: number; ids: number[] }> = await em.query(
        `SELECT (SELECT COALESCE(sum(n), 0) FROM link_counts WHERE user_id = $1 AND kind = $2)::int AS total,
              ARRAY(SELECT id FROM ${table} WHERE user_id = $1${rowKind} ORDER BY id DESC OFFSET $3 LIMIT $4) AS ids`,
        params,
      );
      return row;
    },
    { light: o.light },
  );
  const found = ids.length
    ? await repo.findBy({ id: In(ids), userId } as unknown as FindOptionsWhere<T>)
    : [];
  const byId = new Map(found.map((r) => [r.id, r]));
  const rows = ids.map((id) => byId.get(id)).filter((r): r is T => r !== undefined);
  return { rows, total, limit, page };
}

/**
 * Like paginateOwn, for tables a user may have without bound (campaigns, channels): a
 * `countedPage` (light), each row mapped and wrapped as `paginate` wraps it.
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
  const { rows, total, limit, page } = await countedPage(budget, repo, kind, userId, query, {
    light: true,
  });
  return new Paginated(key, await Promise.all(rows.map(map)), total, limit, page);
}
