import { ApiProperty } from '@nestjs/swagger';

/** A top-10 map `{label: count}` (counts as strings, as v3 has them). */
const TOP_MAP = { type: 'object', additionalProperties: { type: 'string' } } as const;

/** What a feature's schema of the statistics documents beyond the shape (as it was published). */
export interface StatisticsDoc {
  /** `topCountries` says it holds at most 10 entries. */
  topCountriesLimit: boolean;
  /**
   * `socialCount` names its networks (and lists them as required, which leaves `socialCount`
   * itself out of the required properties).
   */
  socialNetworks: boolean;
}

/**
 * The lifetime statistics of a short link (StatsReader.forLink), `data` of GET /api/url/:id,
 * /api/qr/:id and /api/bio/:id. Each feature publishes it under a schema of its own name:
 * `class QrStatisticsView extends statisticsView({...}) {}`.
 */
export function statisticsView(doc: StatisticsDoc) {
  class StatisticsView {
    @ApiProperty({ type: 'integer' }) clicks: number;
    @ApiProperty({ type: 'integer' }) uniqueClicks: number;
    @ApiProperty(
      doc.topCountriesLimit ? { ...TOP_MAP, description: 'At most 10 entries' } : TOP_MAP,
    )
    topCountries: Record<string, string>;
    @ApiProperty(TOP_MAP) topReferrers: Record<string, string>;
    @ApiProperty(TOP_MAP) topBrowsers: Record<string, string>;
    @ApiProperty(TOP_MAP) topOs: Record<string, string>;
    @ApiProperty({ ...TOP_MAP, description: 'City: `Paris, FR`, or Unknown' })
    topCities: Record<string, string>;
    @ApiProperty({ ...TOP_MAP, description: 'Region: `Île-de-France, FR`, or Unknown' })
    topRegions: Record<string, string>;
    @ApiProperty({
      ...TOP_MAP,
      description: 'utm_source (the visit’s query, else the link’s parameters)',
    })
    topUtmSources: Record<string, string>;
    @ApiProperty({
      ...TOP_MAP,
      description: 'utm_medium (the visit’s query, else the link’s parameters)',
    })
    topUtmMediums: Record<string, string>;
    @ApiProperty({
      ...TOP_MAP,
      description: 'utm_campaign (the visit’s query, else the link’s parameters)',
    })
    topUtmCampaigns: Record<string, string>;
    @ApiProperty({ ...TOP_MAP, description: 'Referrer URL: scheme, host and path (no query)' })
    topReferrerUrls: Record<string, string>;
    @ApiProperty({ ...TOP_MAP, description: 'Device vendor and model (`Apple iPhone`)' })
    topDeviceModels: Record<string, string>;
    @ApiProperty({
      type: 'object',
      properties: {
        network01: { type: 'integer' },
        network02: { type: 'integer' },
        network03: { type: 'integer' },
      },
      ...(doc.socialNetworks && {
        required: ['network01', 'network02', 'network03'],
        description:
          'Visits referred by Facebook (network01), X / Twitter (network02), LinkedIn (network03)',
      }),
    })
    socialCount: { network01: number; network02: number; network03: number };
  }
  return StatisticsView;
}
