/** The statistics object of a link or QR code, exactly as documented ("QR statistics"). */
export interface LinkStatistics {
  clicks: number;
  uniqueClicks: number;
  /** label → count (string), at most 10 entries, largest first */
  topCountries: Record<string, string>;
  topReferrers: Record<string, string>;
  topBrowsers: Record<string, string>;
  topOs: Record<string, string>;
  topCities: Record<string, string>;
  topRegions: Record<string, string>;
  topUtmSources: Record<string, string>;
  topUtmMediums: Record<string, string>;
  topUtmCampaigns: Record<string, string>;
  topReferrerUrls: Record<string, string>;
  topDeviceModels: Record<string, string>;
  socialCount: { network01: number; network02: number; network03: number };
}

/** The top maps of the dimensions added with cities (lifetime and range statistics alike). */
export type MoreTops = Pick<
  LinkStatistics,
  | 'topCities'
  | 'topRegions'
  | 'topUtmSources'
  | 'topUtmMediums'
  | 'topUtmCampaigns'
  | 'topReferrerUrls'
  | 'topDeviceModels'
>;

/** Totals of one link, for list items (`clicks`, `uniqueClicks`, QR `scans`). */
export interface LinkTotals {
  clicks: number;
  uniqueClicks: number;
}

/** What the public handler knows about a visit; the recorder derives everything else. */
export interface VisitInput {
  linkId: number;
  /** Owner of the link: their plan's monthly `clicks` cap applies. */
  userId: number;
  method: string;
  /** Client IP (never stored: only a daily-salted digest enters a HyperLogLog). */
  ip: string;
  userAgent: string | undefined;
  referer: string | undefined;
  /** The Accept-Language header (the visitor's languages). */
  acceptLanguage?: string;
  /** The request's query string (without `?`) when it may carry UTM values (`utm_`). */
  query?: string;
  /** The link's parameters: their UTM values count when the query has none. */
  parameters?: ReadonlyArray<{ name: string; value: string }> | null;
  /**
   * When the visit was made (epoch ms), for a visit recorded later than it happened (held during
   * a Redis outage, docs/link-permanence.md): its day, hour and month. Absent: now.
   */
  at?: number;
}

/** One period of a range's series. */
export interface SeriesPoint {
  /** the period's first day within the range, `YYYY-MM-DD`; an hour: `YYYY-MM-DDTHH:00:00Z` */
  date: string;
  clicks: number;
  /** distinct visitors over the period (union of its days' sketches); null for an hour */
  uniqueClicks: number | null;
}

/** Statistics of a link (or an account) over a range of days. */
export interface RangeStatistics extends MoreTops {
  clicks: number;
  /** distinct visitors over the whole range (union of its days' sketches), never a sum of days */
  uniqueClicks: number;
  series: SeriesPoint[];
  topCountries: Record<string, string>;
  topReferrers: Record<string, string>;
  topBrowsers: Record<string, string>;
  topOs: Record<string, string>;
  topDevices: Record<string, string>;
  topLanguages: Record<string, string>;
  socialCount: { network01: number; network02: number; network03: number };
}

/** An account's statistics over a range, with each link's clicks in it. */
export interface AccountRangeStatistics extends RangeStatistics {
  /** link id → clicks over the range (links with at least one) */
  linkClicks: Map<number, number>;
}
