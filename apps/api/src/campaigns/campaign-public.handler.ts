import { ServerResponse } from 'node:http';

import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

import { PublicUrls } from '@app/common';
import { RedisService } from '@app/redis';

import { PublicRequestContext } from '../public/public-routes';
import { PublicResponder } from '../public/responder';
import { campaignListPage } from './campaign-pages';

/** Links shown on a campaign's list page. */
const MAX_LIST_LINKS = 500;

const ROTATOR_PATH = /^\/r\/([a-z0-9-]{3,50})\/?$/;
const LIST_PATH = /^\/u\/([^/]*)-([0-9]{1,10})\/?$/;

/**
 * The public side of campaigns, on the main host only (registered through PublicRoutes):
 * - `GET /r/<slug>`: the rotator, forwarding to the campaign's links in turn;
 * - `GET /u/<slug or name>-<id>`: a public campaign's list page.
 */
@Injectable()
export class CampaignPublicHandler {
  private readonly logger = new Logger(CampaignPublicHandler.name);
  private fallbackRotation = 0;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly redis: RedisService,
    private readonly respond: PublicResponder,
    private readonly urls: PublicUrls,
  ) {}

  async rotator(res: ServerResponse, ctx: PublicRequestContext): Promise<void> {
    const match = ctx.domain ? null : ROTATOR_PATH.exec(ctx.path);
    if (!match) return this.respond.notFound(res, ctx.domain);
    const rows: Array<{ campaign_id: number; alias: string; domain: string | null }> =
      await this.db.query(
        `SELECT c.id AS campaign_id, l.alias, d.domain
           FROM campaigns c
           JOIN links l ON l.campaign_id = c.id AND l.kind = 'link' AND (l.expires_at IS NULL OR l.expires_at > now())
           LEFT JOIN domains d ON d.id = l.domain_id
          WHERE c.slug = $1
          ORDER BY l.id`,
        [match[1]],
      );
    if (!rows.length) return this.respond.notFound(res);
    const turn = await this.nextTurn(rows[0].campaign_id);
    const pick = rows[turn % rows.length];
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
           FROM links l LEFT JOIN domains d ON d.id = l.domain_id
          WHERE l.campaign_id = $1 AND l.kind = 'link' AND l.status = 'public'
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

  /** A shared counter in Redis, so replicas rotate together; a local one while Redis is down. */
  private async nextTurn(campaignId: number): Promise<number> {
    if (this.redis.ready) {
      try {
        return (await this.redis.client.incr(this.redis.key('rotator', campaignId))) - 1;
      } catch (err) {
        this.logger.warn(`rotator counter unavailable: ${(err as Error).message}`);
      }
    }
    return this.fallbackRotation++;
  }
}
