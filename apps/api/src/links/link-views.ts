import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { In, Repository } from 'typeorm';

import { PublicUrls } from '@app/common';
import { Domain, Link } from '@app/database';
import { StatsReader } from '@app/stats';

import { linkDetailsView, LinkDetailsView, linkItemView, LinkItemView } from './dto/link.views';

/** The documented views of links: list items (with short URLs and click totals) and details. */
@Injectable()
export class LinkViews {
  constructor(
    @InjectRepository(Domain) private readonly domains: Repository<Domain>,
    private readonly stats: StatsReader,
    private readonly urls: PublicUrls,
  ) {}

  /** List items of `rows`, in order: one query for their domains, one read of their totals. */
  async items(rows: Link[]): Promise<LinkItemView[]> {
    if (!rows.length) return [];
    const domainIds = [
      ...new Set(rows.map((r) => r.domainId).filter((d): d is number => d !== null)),
    ];
    const [domains, totals] = await Promise.all([
      domainIds.length ? this.domains.find({ where: { id: In(domainIds) } }) : Promise.resolve([]),
      this.stats.totals(rows.map((r) => r.id)),
    ]);
    const domainUrl = new Map(domains.map((d) => [d.id, d.domain]));
    return rows.map((r) =>
      linkItemView(
        r,
        this.urls.short(r.alias, r.domainId ? domainUrl.get(r.domainId) : null),
        totals.get(r.id),
      ),
    );
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
