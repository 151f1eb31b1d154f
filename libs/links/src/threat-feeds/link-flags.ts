import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';

import { formatDateTime, PublicUrls } from '@app/common';
import { WebhookOutbox } from '@app/webhooks';

import { ThreatFlag } from './threat-feeds';

/** `flag` of a link's details: what flagged it (its earliest flag not allowed). */
export interface LinkFlagView {
  source: string;
  type: string;
  /** `YYYY-MM-DD HH:MM:SS` (UTC), when the re-scan flagged it. */
  date: string;
}

/** A target the re-scan found flagged. */
export interface FoundFlag {
  linkId: number;
  target: string;
  flag: ThreatFlag;
}

/** A link that became flagged (it had no flag before): what the re-scan invalidates and reports. */
export interface NewlyFlagged {
  id: number;
  alias: string;
}

/** `data` of `link.flagged` (documented in the webhooks' OpenAPI entries). */
export interface LinkFlaggedData {
  id: number;
  alias: string;
  shorturl: string;
  longurl: string;
  target: string;
  source: string;
  type: string;
  date: string;
}

/**
 * The one writer of `link_flags`: the targets of existing links that the threat feeds or the
 * online lookup flagged after the links were made (the worker's re-scan, `flag`), the admins'
 * allow (`allow`), and the flags of targets a link no longer has (`dropReplaced`, in the link
 * update's transaction). A row is per link and target, so an allow is too: the allowed target is
 * never flagged again for that link (the row stays, and `flag` skips a pair it has), while another
 * link with the same target is flagged as usual. The redirector reads the flagged state with the
 * link (RESOLVE_LINK_SQL), the link views through `active`.
 */
@Injectable()
export class LinkFlags {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly outbox: WebhookOutbox,
    private readonly urls: PublicUrls,
  ) {}

  /**
   * Records what the re-scan found, in one transaction: a row per new (link, target) pair of a
   * link not disabled (pairs already recorded, flagged or allowed, are skipped), and one
   * `link.flagged` event for each link that had no flag before. Answers those links.
   */
  async flag(found: FoundFlag[]): Promise<NewlyFlagged[]> {
    const seen = new Set<string>();
    const rows = found.filter((f) => {
      const key = `${f.linkId} ${f.target}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
    if (!rows.length) return [];
    return this.db.transaction(async (em) => {
      const added: Array<{
        link_id: number;
        target: string;
        source: string;
        type: string;
        flagged_at: Date;
        alias: string;
        user_id: number;
        url: string;
        domain: string | null;
      }> = await em.query(
        `WITH input AS (
           SELECT * FROM unnest($1::int[], $2::text[], $3::text[], $4::text[])
             AS i(link_id, target, source, type)),
         before AS (
           SELECT DISTINCT link_id FROM link_flags
            WHERE link_id = ANY($1::int[]) AND allowed_at IS NULL),
         added AS (
           INSERT INTO link_flags (link_id, target, source, type)
           SELECT i.link_id, i.target, left(i.source, 40), left(i.type, 40)
             FROM input i JOIN links l ON l.id = i.link_id AND l.disabled_at IS NULL
           ON CONFLICT (link_id, md5(target)) DO NOTHING
           RETURNING link_id, target, source, type, flagged_at)
         SELECT DISTINCT ON (a.link_id) a.*, l.alias, l.user_id, l.url, d.domain
           FROM added a JOIN links l ON l.id = a.link_id LEFT JOIN domains d ON d.id = l.domain_id
          WHERE a.link_id NOT IN (SELECT link_id FROM before)
          ORDER BY a.link_id, a.target`,
        [
          rows.map((r) => r.linkId),
          rows.map((r) => r.target),
          rows.map((r) => r.flag.source),
          rows.map((r) => r.flag.type),
        ],
      );
      for (const a of added) {
        const data: LinkFlaggedData = {
          id: a.link_id,
          alias: a.alias,
          shorturl: this.urls.short(a.alias, a.domain),
          longurl: a.url,
          target: a.target,
          source: a.source,
          type: a.type,
          date: formatDateTime(a.flagged_at) as string,
        };
        await this.outbox.record(em, a.user_id, 'link.flagged', data);
      }
      return added.map((a) => ({ id: a.link_id, alias: a.alias }));
    });
  }

  /**
   * An admin's allow of link `linkId` (in the caller's transaction): its flags are cleared for
   * good (kept as allowed). Answers the link's alias, or null when no link has that id.
   */
  async allow(
    em: EntityManager,
    linkId: number,
    adminId: number,
  ): Promise<{ alias: string; cleared: number } | null> {
    const rows: Array<{ alias: string; cleared: string }> = await em.query(
      `WITH link AS (SELECT id, alias FROM links WHERE id = $1 FOR UPDATE),
            cleared AS (
              UPDATE link_flags f SET allowed_at = now(), allowed_by = $2
                FROM link WHERE f.link_id = link.id AND f.allowed_at IS NULL RETURNING 1)
       SELECT link.alias, (SELECT count(*) FROM cleared) AS cleared FROM link`,
      [linkId, adminId],
    );
    return rows.length ? { alias: rows[0].alias, cleared: Number(rows[0].cleared) } : null;
  }

  /**
   * After a link's update (in its transaction): the flags of targets it no longer has go (a
   * target set again later is re-scanned like any other); allowed ones stay.
   */
  async dropReplaced(em: EntityManager, linkId: number, targets: string[]): Promise<void> {
    await em.query(
      `DELETE FROM link_flags WHERE link_id = $1 AND allowed_at IS NULL AND target <> ALL($2::text[])`,
      [linkId, targets],
    );
  }

  /** The flag each of `ids` shows (its earliest not allowed), for the link views. */
  async active(ids: number[]): Promise<Map<number, LinkFlagView>> {
    const out = new Map<number, LinkFlagView>();
    if (!ids.length) return out;
    const rows: Array<{ link_id: number; source: string; type: string; flagged_at: Date }> =
      await this.db.query(
        `SELECT DISTINCT ON (link_id) link_id, source, type, flagged_at FROM link_flags
          WHERE link_id = ANY($1::int[]) AND allowed_at IS NULL
          ORDER BY link_id, flagged_at, target`,
        [ids],
      );
    for (const r of rows)
      out.set(r.link_id, {
        source: r.source,
        type: r.type,
        date: formatDateTime(r.flagged_at) as string,
      });
    return out;
  }
}
