import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

import { NotFoundError, Principal, PublicUrls } from '@app/common';
import {
  isoDay,
  parseRange,
  RangeQuery,
  RangeStatistics,
  StatsRange,
  StatsRangeReader,
} from '@app/stats';

import { AccountStatsView, RangeStatsView, TopLinkView } from './dto/stats.view';

const TOP_LINKS = 10;

/**
 * Statistics over date ranges: one link, one QR code, or the caller's whole account. The range is
 * checked and clamped to the caller's plan retention here; the reading is StatsRangeReader's.
 */
@Injectable()
export class StatsService {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly ranges: StatsRangeReader,
    private readonly urls: PublicUrls,
  ) {}

  /** The checked range of a query for this caller: their effective plan's retention (admins: none). */
  range(auth: Principal, query: RangeQuery): StatsRange {
    const retention = auth.isAdmin ? 0 : Number(auth.plan.limits.retention) || 0;
    return parseRange(query, isoDay(Date.now()), Math.max(0, retention));
  }

  /** The caller's short link `id` (404 when it is not theirs). */
  async linkId(auth: Principal, id: number): Promise<number> {
    const [row] = await this.db.query(
      `SELECT id FROM links WHERE id = $1 AND user_id = $2 AND kind = 'link'`,
      [id, auth.user.id],
    );
    if (!row) throw new NotFoundError('Link');
    return row.id;
  }

  async link(auth: Principal, id: number, query: RangeQuery): Promise<{ data: RangeStatsView }> {
    const range = this.range(auth, query);
    const linkId = await this.linkId(auth, id);
    return { data: rangeView(range, await this.ranges.forLink(linkId, range)) };
  }

  async qr(auth: Principal, id: number, query: RangeQuery): Promise<{ data: RangeStatsView }> {
    const range = this.range(auth, query);
    const [row] = await this.db.query(
      `SELECT link_id FROM qr_codes WHERE id = $1 AND user_id = $2`,
      [id, auth.user.id],
    );
    if (!row) throw new NotFoundError('QR code');
    return { data: rangeView(range, await this.ranges.forLink(row.link_id, range)) };
  }

  async account(auth: Principal, query: RangeQuery): Promise<{ data: AccountStatsView }> {
    const range = this.range(auth, query);
    const { linkClicks, ...stats } = await this.ranges.forUser(auth.user.id, range);
    return {
      data: { ...rangeView(range, stats), topLinks: await this.topLinks(auth, linkClicks) },
    };
  }

  /** The caller's short links (kind link) with the most clicks, most first, ties newest first. */
  private async topLinks(auth: Principal, linkClicks: Map<number, number>): Promise<TopLinkView[]> {
    const ids = [...linkClicks].filter(([, n]) => n > 0).map(([id]) => id);
    if (!ids.length) return [];
    const rows: Array<{ id: number; alias: string; domain: string | null }> = await this.db.query(
      `SELECT l.id, l.alias, d.domain FROM links l LEFT JOIN domains d ON d.id = l.domain_id
        WHERE l.id = ANY($1::int[]) AND l.user_id = $2 AND l.kind = 'link'`,
      [ids, auth.user.id],
    );
    return rows
      .map((r) => ({
        id: r.id,
        alias: r.alias,
        shorturl: this.urls.short(r.alias, r.domain),
        clicks: linkClicks.get(r.id) ?? 0,
      }))
      .sort((a, b) => b.clicks - a.clicks || b.id - a.id)
      .slice(0, TOP_LINKS);
  }
}

/** The documented `data` of a range read. */
function rangeView(range: StatsRange, s: RangeStatistics): RangeStatsView {
  return {
    from: range.from,
    to: range.to,
    interval: range.interval,
    retention: range.retention,
    notice: range.notice,
    clicks: s.clicks,
    uniqueClicks: s.uniqueClicks,
    series: s.series,
    topCountries: s.topCountries,
    topReferrers: s.topReferrers,
    topBrowsers: s.topBrowsers,
    topOs: s.topOs,
    topDevices: s.topDevices,
    topLanguages: s.topLanguages,
    topCities: s.topCities,
    topRegions: s.topRegions,
    topUtmSources: s.topUtmSources,
    topUtmMediums: s.topUtmMediums,
    topUtmCampaigns: s.topUtmCampaigns,
    topReferrerUrls: s.topReferrerUrls,
    topDeviceModels: s.topDeviceModels,
    socialCount: s.socialCount,
  };
}
