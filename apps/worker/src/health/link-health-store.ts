import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';

import { HealthProbe, HealthStatus } from '@app/database';

/** Days of visits that keep a link probed. */
export const VISITED_DAYS = 30;

/** A claimed row: the link's state with what the probe and its events need. */
export interface ClaimedLink {
  linkId: number;
  lease: number;
  userId: number;
  alias: string;
  /** the link's URL now */
  url: string;
  fallbackUrl: string | null;
  /** the branded domain's URL, or null (PUBLIC_URL) */
  shortDomain: string | null;
  /** visited in the last VISITED_DAYS days, neither disabled nor expired: to be probed */
  probe: boolean;
  stateUrl: string;
  status: HealthStatus;
  fails: number;
  oks: number;
  since: Date | null;
  domain: string | null;
  driftedTo: string | null;
  history: HealthProbe[];
}

/** The state written back after a probe. */
export interface HealthWrite {
  linkId: number;
  lease: number;
  url: string;
  status: HealthStatus;
  fails: number;
  oks: number;
  since: Date | null;
  checked: Date;
  httpStatus: number | null;
  error: string | null;
  history: HealthProbe[];
  domain: string | null;
  driftedTo: string | null;
  nextAt: Date;
}

interface ClaimRow {
  link_id: number;
  lease: number;
  user_id: number;
  alias: string;
  url: string;
  fallback_url: string | null;
  short_domain: string | null;
  probe: boolean;
  state_url: string;
  status: HealthStatus;
  fails: number;
  oks: number;
  since: Date | null;
  domain: string | null;
  drifted_to: string | null;
  history: HealthProbe[];
}

/**
 * The `link_health` store: every statement on the table is here (one writer per table; the api
 * only reads it). Reads and writes are batched: one statement enrols, one claims a batch, one
 * writes a batch's results, one releases what was not probed.
 */
@Injectable()
export class LinkHealthStore {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /**
   * One step of an enrolment pass: the next `limit` links (by id, after `after`) visited in the
   * last `days` days (at most VISITED_DAYS; the folded per-day statistics, `link_stats_daily`,
   * read in its primary key's order from the cursor, so a step reads a bounded slice), those
   * without a row added, each due at a random moment of the next `spreadSeconds` (no herd of
   * first probes). Returns how many were added and the cursor of the next step (null: done).
   */
  async enrol(
    limit: number,
    spreadSeconds: number,
    days = VISITED_DAYS,
    after = 0,
  ): Promise<{ added: number; next: number | null }> {
    const [row]: Array<{ added: number; last: number | null; seen: number }> = await this.db.query(
      `WITH v AS (
         SELECT DISTINCT d.link_id FROM link_stats_daily d
          WHERE d.link_id > $4 AND d.day >= current_date - $3::int
          ORDER BY d.link_id LIMIT $1
       ), ins AS (
         INSERT INTO link_health (link_id, url, next_at)
         SELECT l.id, l.url, now() + random() * make_interval(secs => $2)
           FROM v JOIN links l ON l.id = v.link_id AND l.kind = 'link'
          WHERE NOT EXISTS (SELECT 1 FROM link_health h WHERE h.link_id = l.id)
         ON CONFLICT (link_id) DO NOTHING
         RETURNING link_id
       )
       SELECT (SELECT count(*) FROM ins)::int AS added, (SELECT max(link_id) FROM v) AS last,
              (SELECT count(*) FROM v)::int AS seen`,
      [limit, spreadSeconds, Math.min(days, VISITED_DAYS), after],
    );
    return { added: row.added, next: row.seen < limit ? null : row.last };
  }

  /**
   * Claims up to `limit` due rows (oldest due first; rows another worker holds are skipped):
   * each gets the `lease` and is not due again for `leaseSeconds` unless written or released.
   */
  async claim(limit: number, lease: number, leaseSeconds: number): Promise<ClaimedLink[]> {
    const rows: ClaimRow[] = await this.db.query(
      `WITH due AS (
         SELECT link_id FROM link_health WHERE next_at <= now()
          ORDER BY next_at LIMIT $1 FOR UPDATE SKIP LOCKED
       ), claimed AS (
         UPDATE link_health h SET next_at = now() + make_interval(secs => $3), lease = $2
           FROM due WHERE h.link_id = due.link_id
         RETURNING h.link_id, h.lease, h.url AS state_url, h.status, h.fails, h.oks, h.since,
                   h.domain, h.drifted_to, h.history
       )
       SELECT c.*, l.user_id, l.alias, l.url, l.fallback_url, dm.domain AS short_domain,
              (l.disabled_at IS NULL AND (l.expires_at IS NULL OR l.expires_at > now()) AND EXISTS (
                 SELECT 1 FROM link_stats_daily s
                  WHERE s.link_id = l.id AND s.day >= current_date - ${VISITED_DAYS})) AS probe
         FROM claimed c
         JOIN links l ON l.id = c.link_id
         LEFT JOIN domains dm ON dm.id = l.domain_id`,
      [limit, lease, leaseSeconds],
    );
    return rows.map((r) => ({
      linkId: r.link_id,
      lease: r.lease,
      userId: r.user_id,
      alias: r.alias,
      url: r.url,
      fallbackUrl: r.fallback_url,
      shortDomain: r.short_domain,
      probe: r.probe,
      stateUrl: r.state_url,
      status: r.status,
      fails: r.fails,
      oks: r.oks,
      since: r.since,
      domain: r.domain,
      driftedTo: r.drifted_to,
      history: r.history ?? [],
    }));
  }

  /** Rows handed back unprobed, due again at `nextAt` (only while still under `lease`). */
  async release(rows: Array<{ linkId: number; lease: number; nextAt: Date }>): Promise<void> {
    if (!rows.length) return;
    await this.db.query(
      `UPDATE link_health h SET next_at = i.next_at, lease = NULL
         FROM jsonb_to_recordset($1::jsonb) AS i(link_id int, lease int, next_at timestamptz)
        WHERE h.link_id = i.link_id AND h.lease = i.lease`,
      [JSON.stringify(rows.map((r) => ({ link_id: r.linkId, lease: r.lease, next_at: r.nextAt })))],
    );
  }

  /**
   * Writes a batch's results in `em`'s transaction: only rows still under their lease whose link
   * still has the probed URL (a change meanwhile: the row is probed again for the new one).
   * Returns the link ids written.
   */
  async write(em: EntityManager, rows: HealthWrite[]): Promise<Set<number>> {
    if (!rows.length) return new Set();
    // an UPDATE answers [rows, count] through TypeORM
    const [written] = (await em.query(
      `UPDATE link_health h
          SET url = i.url, status = i.status, fails = i.fails, oks = i.oks, since = i.since,
              checked_at = i.checked, http_status = i.http_status, error = i.error,
              history = i.history, domain = i.domain, drifted_to = i.drifted_to,
              next_at = i.next_at, lease = NULL
         FROM jsonb_to_recordset($1::jsonb) AS i(link_id int, lease int, url text, status varchar,
                fails int, oks int, since timestamptz, checked timestamptz, http_status int,
                error varchar, history jsonb, domain varchar, drifted_to varchar,
                next_at timestamptz)
         JOIN links l ON l.id = i.link_id
        WHERE h.link_id = i.link_id AND h.lease = i.lease AND l.url = i.url
       RETURNING h.link_id`,
      [
        JSON.stringify(
          rows.map((r) => ({
            link_id: r.linkId,
            lease: r.lease,
            url: r.url,
            status: r.status,
            fails: r.fails,
            oks: r.oks,
            since: r.since,
            checked: r.checked,
            http_status: r.httpStatus,
            error: r.error,
            history: r.history,
            domain: r.domain,
            drifted_to: r.driftedTo,
            next_at: r.nextAt,
          })),
        ),
      ],
    )) as [Array<{ link_id: number }>, number];
    return new Set(written.map((r) => r.link_id));
  }
}
