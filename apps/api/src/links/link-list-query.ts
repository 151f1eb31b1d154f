import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';

import { LinkStatus } from '@app/database';
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

/**
 * A list item's row: the link's columns the item shows, its branded domain, its channels (in
 * channel id order), its folded click totals and its active flag (the earliest not allowed).
 */
export interface LinkItemRow {
  id: number;
  alias: string;
  url: string;
  title: string;
  description: string;
  created_at: Date;
  campaign_id: number | null;
  status: LinkStatus;
  /** the branded domain's URL and host, null on the main domain */
  domain: string | null;
  host: string | null;
  channels: number[];
  /** folded totals (bigint: a string), null when the link has none */
  clicks: string | null;
  uniques: string | null;
  flag_source: string | null;
  flag_type: string | null;
  flagged_at: Date | null;
}

/**
 * The rows of a page's ids ($1) of the user ($2), in the ids' order, with everything the item
 * shows besides the not-yet-folded clicks, in one statement (LinkViews.items reads the same in
 * four queries for a link's details). Each id is looked up by its primary key (`OFFSET 0` keeps
 * the planner from merging the lookup into a join) and its owner checked after: on a user's
 * links loaded in bulk and not analysed yet, the planner took the owner for one of few links
 * and read the owner's whole index instead (~100 ms for 150 000 links).
 */
const ITEMS = `
  SELECT l.id, l.alias, l.url, l.title, l.description, l.created_at, l.campaign_id, l.status,
         d.domain, d.host,
         ARRAY(SELECT ci.channel_id FROM channel_items ci
                WHERE ci.item_type = 'links' AND ci.item_id = l.id AND ci.user_id = $2
                ORDER BY ci.channel_id) AS channels,
         t.clicks, t.uniques,
         f.source AS flag_source, f.type AS flag_type, f.flagged_at
    FROM unnest($1::int[]) WITH ORDINALITY AS page(id, n)
   CROSS JOIN LATERAL (
      SELECT id, user_id, alias, url, title, description, created_at, campaign_id, status, domain_id
        FROM links WHERE links.id = page.id OFFSET 0) l
    LEFT JOIN domains d ON d.id = l.domain_id
    LEFT JOIN link_stats_total t ON t.link_id = l.id
    LEFT JOIN LATERAL (
      SELECT source, type, flagged_at FROM link_flags
       WHERE link_id = l.id AND allowed_at IS NULL
       ORDER BY flagged_at, target LIMIT 1) f ON true
   WHERE l.user_id = $2
   ORDER BY page.n`;

/** The user's maintained count of links ($1: the user). */
const TOTAL = `(SELECT COALESCE(sum(n), 0) FROM link_counts WHERE user_id = $1 AND kind = 'link')::int`;

/**
 * The text of the search index `links_search_keys` (migration SearchKeys: one GIN key per pair of
 * owner and trigram, `search_keys(user_id, text)`, so a search reads the user's matches and
 * nobody else's, whatever the user's size). Whatever one field contains, this contains: it
 * narrows, the fields decide.
 */
const SEARCH_TEXT = `(l.url || ' ' || l.title::text || ' ' || l.alias::text)`;

/**
 * The list's one query (`GET /api/urls`), run in the caller's transaction (ListBudget), so that
 * it can be routed as one piece. It answers the total and the page's ids in one statement (one
 * snapshot: the total and the page agree):
 * - no filter: the total is the maintained count (`link_counts`), the page an index-only scan of
 *   `links_user_idx` (user, kind, id) to the page's offset: reading ids, not rows (`newest`);
 * - `q` or `short`: the matching ids are found once (the user's keys in the search index, the
 *   alias index, or the user's links for a keyword without a trigram), counted exactly, and the
 *   page taken from them;
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
    let matching: string;
    if (f.q) {
      const pattern = param(likePattern(f.q));
      where.push(
        `(l.url ILIKE ${pattern} OR l.title ILIKE ${pattern} OR l.alias ILIKE ${pattern})`,
      );
      // the keyword's keys (its trigrams inside a word, with the owner) are looked up in the
      // index; a keyword without any ('ab', 'a.b', '%', '本': no three letters or digits in a
      // row) reads the user's own links instead (links_user_idx), within the list's time budget.
      // Postgres makes the keys of both sides, so both split words alike.
      // The keys hold the owner: with `user_id = $1` beside them, the planner (which cannot see
      // the keys, computed in this statement) would AND in a bitmap of all the user's links
      // from links_user_idx (34 ms for 1 000 000); `+ 0` keeps the owner a filter.
      const filter = where.join(' AND ');
      const byKeys = ['l.user_id + 0 = $1', ...where.slice(1)].join(' AND ');
      matching = `k AS MATERIALIZED (SELECT search_query_keys($1, ${param(f.q)}) AS keys),
       m AS MATERIALIZED (
         SELECT l.id FROM links l
          WHERE ${byKeys} AND (SELECT cardinality(keys) FROM k) > 0
            AND search_keys(l.user_id, ${SEARCH_TEXT}) @> (SELECT keys FROM k)
         UNION ALL
         SELECT l.id FROM links l WHERE ${filter} AND (SELECT cardinality(keys) FROM k) = 0)`;
    } else if (where.length === 2)
      return f.order === 'click' ? this.byClicks(em, f) : this.newest(em, f);
    else matching = `m AS MATERIALIZED (SELECT l.id FROM links l WHERE ${where.join(' AND ')})`;
    const order =
      f.order === 'click'
        ? 'LEFT JOIN link_stats_total t ON t.link_id = m.id ORDER BY COALESCE(t.clicks, 0) DESC, m.id DESC'
        : 'ORDER BY m.id DESC';
    return this.one(
      em,
      `WITH ${matching}
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

  /** The rows of the page `ids` of `userId` (ITEMS), in `em`'s transaction. */
  items(em: EntityManager, userId: number, ids: number[]): Promise<LinkItemRow[]> {
    return em.query(ITEMS, [ids, userId]);
  }

  private async one(em: EntityManager, sql: string, params: unknown[]): Promise<LinkListPage> {
    const [row]: Array<{ total: number; ids: number[] }> = await em.query(sql, params);
    return { total: row.total, ids: row.ids };
  }
}
