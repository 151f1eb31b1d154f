import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';

import { likePattern } from '@app/links';

/** What `GET /api/urls` narrows and sorts by. */
export interface LinkListFilter {
  userId: number;
  /** keyword searched (case-insensitive, literally) in the target URL, title and alias */
  q?: string;
  /** exact alias */
  short?: string;
  order: 'date' | 'click';
  offset: number;
  limit: number;
}

/** One page of the list: the total matching (every page), and the ids of this page in order. */
export interface LinkListPage {
  total: number;
  ids: number[];
}

/** The user's maintained count of links ($1: the user). */
const TOTAL = `(SELECT COALESCE(sum(n), 0) FROM link_counts WHERE user_id = $1 AND kind = 'link')::int`;

/**
 * The text of the trigram index `links_search_user_trgm` (migration SearchPerUser: the owner and
 * the trigrams of url, title and alias in one GIN index, so a search reads the user's matches and
 * nobody else's). Whatever one field contains, this contains: it narrows, the fields decide.
 */
const SEARCH_TEXT = `(l.url || ' ' || l.title::text || ' ' || l.alias::text)`;

/**
 * Whether a keyword gives pg_trgm a trigram to look up: three letters or digits in a row. A shorter
 * word ('ab', 'a.b', '%') has none: the index would have to be read whole, so such a search reads the
 * user's own links instead (links_user_idx), within the list's time budget.
 */
export function trigramSearchable(q: string): boolean {
  return /[\p{L}\p{N}]{3}/u.test(q);
}

/**
 * The list's one query (`GET /api/urls`), run in the caller's transaction (ListBudget), so that
 * it can be routed as one piece. It answers the total and the page's ids in one statement (one
 * snapshot: the total and the page agree):
 * - no filter: the total is the maintained count (`link_counts`), the page an index-only scan of
 *   `links_user_idx` (user, kind, id) to the page's offset: reading ids, not rows (`newest`);
 * - `q` or `short`: the matching ids are found once (the user's trigram index, the alias index,
 *   or the user's links for a keyword without a trigram), counted exactly, and the page taken
 *   from them;
 * - `order=click`: ordered by the folded click total, then newest first: without a filter from
 *   two indexes (byClicks), with one the matching ids joined to their totals.
 */
@Injectable()
export class LinkListQuery {
  /** The total and the page's ids of `f`, in `em`'s transaction. */
  async page(em: EntityManager, f: LinkListFilter): Promise<LinkListPage> {
    const params: unknown[] = [f.userId];
    const param = (value: unknown) => `$${params.push(value)}`;
    const where = ['l.user_id = $1', "l.kind = 'link'"];
    if (f.short !== undefined) where.push(`l.alias = ${param(f.short)}`);
    if (f.q) {
      const pattern = param(likePattern(f.q));
      if (trigramSearchable(f.q)) where.push(`${SEARCH_TEXT} ILIKE ${pattern}`);
      where.push(
        `(l.url ILIKE ${pattern} OR l.title ILIKE ${pattern} OR l.alias ILIKE ${pattern})`,
      );
    }
    if (where.length === 2) return f.order === 'click' ? this.byClicks(em, f) : this.newest(em, f);
    const order =
      f.order === 'click'
        ? 'LEFT JOIN link_stats_total t ON t.link_id = m.id ORDER BY COALESCE(t.clicks, 0) DESC, m.id DESC'
        : 'ORDER BY m.id DESC';
    return this.one(
      em,
      `WITH m AS MATERIALIZED (SELECT l.id FROM links l WHERE ${where.join(' AND ')})
       SELECT (SELECT count(*) FROM m)::int AS total,
              ARRAY(SELECT m.id FROM m ${order} OFFSET ${param(f.offset)} LIMIT ${param(f.limit)}) AS ids`,
      params,
    );
  }

  /** All of a user's links, newest first: the page's ids from an index-only scan of links_user_idx. */
  private newest(em: EntityManager, f: LinkListFilter): Promise<LinkListPage> {
    return this.one(
      em,
      `SELECT ${TOTAL} AS total,
              ARRAY(SELECT l.id FROM links l WHERE l.user_id = $1 AND l.kind = 'link'
                     ORDER BY l.id DESC OFFSET $2 LIMIT $3) AS ids`,
      [f.userId, f.offset, f.limit],
    );
  }

  /**
   * All of a user's links, most clicked first (ties and links without clicks newest first), from
   * two index scans merged: the clicked links from `link_stats_total_rank_idx` (clicks, id), read
   * no further than the page's end; then, only when they do not fill the page, the others from
   * `links_user_idx` (id), as many as the page still needs (the scan skips at most the clicked
   * links, fewer than the page's end): a page costs its depth, however many links have clicks.
   */
  private byClicks(em: EntityManager, f: LinkListFilter): Promise<LinkListPage> {
    return this.one(
      em,
      `WITH clicked AS (
         SELECT t.link_id AS id, t.clicks FROM link_stats_total t
          WHERE t.user_id = $1 AND t.kind = 'link' AND t.clicks > 0
          ORDER BY t.clicks DESC, t.link_id DESC LIMIT $2::int + $3::int
       ),
       need AS (SELECT $2::int + $3::int - (SELECT count(*)::int FROM clicked) AS n)
       SELECT ${TOTAL} AS total,
              ARRAY(
                SELECT id FROM (
                  SELECT id, clicks FROM clicked
                  UNION ALL
                  (SELECT l.id, 0 FROM links l
                    WHERE (SELECT n FROM need) > 0 AND l.user_id = $1 AND l.kind = 'link'
                      AND NOT EXISTS (SELECT 1 FROM link_stats_total t WHERE t.link_id = l.id AND t.clicks > 0)
                    ORDER BY l.id DESC LIMIT (SELECT GREATEST(n, 0) FROM need))
                ) ranked
                ORDER BY clicks DESC, id DESC OFFSET $2 LIMIT $3) AS ids`,
      [f.userId, f.offset, f.limit],
    );
  }

  private async one(em: EntityManager, sql: string, params: unknown[]): Promise<LinkListPage> {
    const [row]: Array<{ total: number; ids: number[] }> = await em.query(sql, params);
    return { total: row.total, ids: row.ids };
  }
}
