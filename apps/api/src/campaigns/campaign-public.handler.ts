import { ServerResponse } from 'node:http';

import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

import { PublicUrls } from '@app/common';

import { PublicRequestContext } from '../public/public-routes';
import { PublicResponder } from '../public/responder';
import { campaignListPage } from './campaign-pages';
import { CampaignRotation } from './campaign-rotation';

/** Links shown on a campaign's list page. */
const MAX_LIST_LINKS = 500;
/**
 * The campaign's newest links a list page reads at most (`links_campaign_idx`), of which it shows
 * the public ones that have not expired: an anonymous page view costs the same however many
 * private or expired links the campaign holds.
 */
const MAX_LIST_SCAN = 5000;

const ROTATOR_PATH = /^\/r\/([a-z0-9-]{3,50})\/?$/;
const LIST_PATH = /^\/u\/([^/]*)-([0-9]{1,10})\/?$/;

/**
 * The public side of campaigns, on the main host only (registered through PublicRoutes):
 * - `GET /r/<slug>`: the rotator, forwarding to the campaign's links in turn;
 * - `GET /u/<slug or name>-<id>`: a public campaign's list page.
 */
@Injectable()
export class CampaignPublicHandler {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly rotation: CampaignRotation,
    private readonly respond: PublicResponder,
    private readonly urls: PublicUrls,
  ) {}

  /**
   * The campaign's live links in turn, by link id (CampaignRotation): one indexed read of the
   * campaign and its rotation's version here, one Redis script there, whatever the campaign's size.
   */
  async rotator(res: ServerResponse, ctx: PublicRequestContext): Promise<void> {
    const match = ctx.domain ? null : ROTATOR_PATH.exec(ctx.path);
    if (!match) return this.respond.notFound(res, ctx.domain);
    const [campaign]: Array<{ id: number; version: string }> = await this.db.query(
      `SELECT c.id, COALESCE(r.version, 0)::text AS version
         FROM campaigns c LEFT JOIN campaign_rotations r ON r.campaign_id = c.id
        WHERE c.slug = $1`,
      [match[1]],
    );
    const pick = campaign ? await this.rotation.next(campaign.id, campaign.version) : null;
    if (!pick) return this.respond.notFound(res);
    this.respond.redirect(res, this.urls.short(pick.alias, pick.domain), 'no-store');
  }

  /** A public campaign's public links; private or unknown campaigns are a 404. */
  async list(res: ServerResponse, ctx: PublicRequestContext): Promise<void> {
    const match = ctx.domain ? null : LIST_PATH.exec(ctx.path);
    if (!match) return this.respond.notFound(res, ctx.domain);
    const [, prefix, rawId] = match;
    const id = Number(rawId);
    if (id < 1 || id > 2147483647) return this.respond.notFound(res);
    const campaigns: Array<{ name: string; slug: string | null }> = await this.db.query(
      'SELECT name, slug FROM campaigns WHERE id = $1 AND public',
      [id],
    );
    const campaign = campaigns[0];
    // with a slug, the list URL carries it; without, the name part is decoration
    if (!campaign || (campaign.slug && campaign.slug !== prefix)) return this.respond.notFound(res);
    const links: Array<{ alias: string; title: string; domain: string | null }> =
      await this.db.query(
        `SELECT l.alias, l.title, d.domain
           FROM (SELECT * FROM links WHERE campaign_id = $1
                  ORDER BY id DESC LIMIT ${MAX_LIST_SCAN}) l
           LEFT JOIN domains d ON d.id = l.domain_id
          WHERE l.kind = 'link' AND l.status = 'public'
            AND (l.expires_at IS NULL OR l.expires_at > now())
          ORDER BY l.id DESC LIMIT ${MAX_LIST_LINKS}`,
        [id],
      );
    const items = links.map((l) => ({
      title: l.title,
      shorturl: this.urls.short(l.alias, l.domain),
    }));
    this.respond.sendPage(res, 200, campaignListPage(campaign.name, items), 'no-cache');
  }
}
