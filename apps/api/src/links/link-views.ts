import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { In, Repository } from 'typeorm';

import { formatDateTime, PublicUrls } from '@app/common';
import { ChannelItem, Domain, Link } from '@app/database';
import { LinkFlags } from '@app/links';
import { LinkTotals, StatsReader } from '@app/stats';

import { linkDetailsView, LinkDetailsView, linkItemView, LinkItemView } from './dto/link.view';
import { LinkItemRow } from './link-list-query';

/** The documented views of links: list items (with short URLs and click totals) and details. */
@Injectable()
export class LinkViews {
  constructor(
    @InjectRepository(Domain) private readonly domains: Repository<Domain>,
    @InjectRepository(ChannelItem) private readonly channelItems: Repository<ChannelItem>,
    private readonly stats: StatsReader,
    private readonly urls: PublicUrls,
    private readonly flags: LinkFlags,
  ) {}

  /**
   * List items of `rows`, in order: one query for their domains, one for their channels, one
   * read of their totals, one of their flags.
   */
  async items(rows: Link[]): Promise<LinkItemView[]> {
    if (!rows.length) return [];
    const ids = rows.map((r) => r.id);
    const domainIds = [
      ...new Set(rows.map((r) => r.domainId).filter((d): d is number => d !== null)),
    ];
    const [domains, assignments, totals, flags] = await Promise.all([
      domainIds.length ? this.domains.find({ where: { id: In(domainIds) } }) : Promise.resolve([]),
      this.channelItems.find({
        select: { itemId: true, channelId: true },
        where: { itemType: 'links', itemId: In(ids), userId: rows[0].userId },
        order: { channelId: 'ASC' },
      }),
      this.stats.totals(ids),
      this.flags.active(ids),
    ]);
    const domainOf = new Map(domains.map((d) => [d.id, d]));
    const channelsOf = new Map<number, number[]>();
    for (const a of assignments) {
      const list = channelsOf.get(a.itemId);
      if (list) list.push(a.channelId);
      else channelsOf.set(a.itemId, [a.channelId]);
    }
    return rows.map((r) => {
      const domain = r.domainId ? domainOf.get(r.domainId) : undefined;
      return linkItemView(r, {
        shorturl: this.urls.short(r.alias, domain?.domain ?? null),
        host: domain?.host ?? null,
        channels: channelsOf.get(r.id) ?? [],
        totals: totals.get(r.id),
        flag: flags.get(r.id),
      });
    });
  }

  /**
   * List items of rows read whole by LinkListQuery.items, in order: `totals` their clicks with
   * the not-yet-folded ones added (StatsReader.addPending). The same items as `items` answers.
   */
  rowItems(rows: LinkItemRow[], totals: Map<number, LinkTotals>): LinkItemView[] {
    return rows.map((r) => {
      const t = totals.get(r.id);
      const flag = r.flag_source
        ? {
            source: r.flag_source,
            type: r.flag_type as string,
            date: formatDateTime(r.flagged_at) as string,
          }
        : undefined;
      return linkItemView(
        {
          id: r.id,
          alias: r.alias,
          url: r.url,
          title: r.title,
          description: r.description,
          createdAt: r.created_at,
          campaignId: r.campaign_id,
          status: r.status,
        },
        {
          shorturl: this.urls.short(r.alias, r.domain),
          host: r.host,
          channels: r.channels,
          totals: t,
          flag,
        },
      );
    });
  }

  /** `details` of `GET /api/url/:id`: the item and the link's settings. */
  async details(link: Link, pixelIds: number[]): Promise<LinkDetailsView> {
    const [[item], domain] = await Promise.all([
      this.items([link]),
      link.domainId ? this.domains.findOne({ where: { id: link.domainId } }) : null,
    ]);
    return linkDetailsView(item, link, domain ? domain.domain : null, pixelIds);
  }
}
