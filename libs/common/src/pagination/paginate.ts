import { ObjectLiteral, Repository, SelectQueryBuilder } from 'typeorm';

import { Paginated } from '../http/envelope';
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
