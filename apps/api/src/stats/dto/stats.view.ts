import { ApiProperty } from '@nestjs/swagger';

import { INTERVALS } from '@app/stats';

const TOP = (what: string) => ({
  type: 'object' as const,
  additionalProperties: { type: 'string' },
  description: `${what} → visits over the range (as a string); at most 10 entries, largest first`,
  example: {},
});

class SocialCountView {
  @ApiProperty({ type: 'integer', description: 'Visits referred by Facebook' }) network01: number;
  @ApiProperty({ type: 'integer', description: 'Visits referred by X (Twitter)' })
  network02: number;
  @ApiProperty({ type: 'integer', description: 'Visits referred by LinkedIn' }) network03: number;
}

export class SeriesPointView {
  @ApiProperty({
    example: '2026-11-02',
    description:
      'First day of the period within the range (YYYY-MM-DD, UTC); with interval=hour, the hour (YYYY-MM-DDTHH:00:00Z)',
  })
  date: string;
  @ApiProperty({ type: 'integer', description: 'Visits counted in the period' }) clicks: number;
  @ApiProperty({
    type: 'integer',
    nullable: true,
    description:
      'Distinct visitors over the period (union of its days’ HyperLogLog sketches, standard error 0.81 %), not a sum of daily counts; null for an hour (visitors are counted per day)',
  })
  uniqueClicks: number | null;
}

/** The days an answer over a range covers, and the plan's retention that may have raised from. */
export class DayRangeView {
  @ApiProperty({
    example: '2026-11-01',
    format: 'date',
    description: 'First day answered: the one asked for, or raised to the first day the plan keeps',
  })
  from: string;
  @ApiProperty({ example: '2026-11-30', format: 'date', description: 'Last day answered' })
  to: string;
  @ApiProperty({
    type: 'integer',
    description: 'Days of statistics the plan keeps (0 = forever; admins: 0)',
  })
  retention: number;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Set when from was raised to what the plan keeps, saying so; otherwise null',
    example: null,
  })
  notice: string | null;
}

/** `data` of `GET /api/url/:id/stats` and `GET /api/qr/:id/stats`. */
export class RangeStatsView extends DayRangeView {
  @ApiProperty({ enum: INTERVALS }) interval: string;
  @ApiProperty({ type: 'integer', description: 'Visits counted over the range' }) clicks: number;
  @ApiProperty({
    type: 'integer',
    description:
      'Distinct visitors over the whole range (union of the days’ sketches, standard error 0.81 %): a visitor who came on several days counts once',
  })
  uniqueClicks: number;
  @ApiProperty({
    type: [SeriesPointView],
    description: 'Every period of the range in order, zero-filled; clicks add up to clicks',
  })
  series: SeriesPointView[];
  @ApiProperty(TOP('Country (English name, or Unknown)')) topCountries: Record<string, string>;
  @ApiProperty(TOP('Referrer host (or Direct)')) topReferrers: Record<string, string>;
  @ApiProperty(TOP('Browser')) topBrowsers: Record<string, string>;
  @ApiProperty(TOP('Operating system')) topOs: Record<string, string>;
  @ApiProperty(TOP('Device type: mobile, tablet, desktop or other')) topDevices: Record<
    string,
    string
  >;
  @ApiProperty(
    TOP('Primary language of the visitor (ISO 639-1 code from Accept-Language, or Unknown)'),
  )
  topLanguages: Record<string, string>;
  @ApiProperty(TOP('City: `Paris, FR` (name and country code), or Unknown')) topCities: Record<
    string,
    string
  >;
  @ApiProperty(TOP('Region (first-level subdivision): `Île-de-France, FR`, or Unknown'))
  topRegions: Record<string, string>;
  @ApiProperty(TOP('utm_source of the visit’s query, else of the link’s parameters'))
  topUtmSources: Record<string, string>;
  @ApiProperty(TOP('utm_medium of the visit’s query, else of the link’s parameters'))
  topUtmMediums: Record<string, string>;
  @ApiProperty(TOP('utm_campaign of the visit’s query, else of the link’s parameters'))
  topUtmCampaigns: Record<string, string>;
  @ApiProperty(TOP('Referrer URL: scheme, host and path (never the query)'))
  topReferrerUrls: Record<string, string>;
  @ApiProperty(TOP('Device vendor and model (`Apple iPhone`)')) topDeviceModels: Record<
    string,
    string
  >;
  @ApiProperty({ type: SocialCountView }) socialCount: SocialCountView;
}

export class TopLinkView {
  @ApiProperty({ type: 'integer' }) id: number;
  @ApiProperty() alias: string;
  @ApiProperty({ example: 'https://short.example/abc123' }) shorturl: string;
  @ApiProperty({ type: 'integer', description: 'Visits over the range' }) clicks: number;
}

/** `data` of `GET /api/stats`. */
export class AccountStatsView extends RangeStatsView {
  @ApiProperty({
    type: [TopLinkView],
    description:
      'Your short links with the most visits over the range (at most 10, most first; ties: newest first). Totals above cover every short code: links, QR codes and bio pages.',
  })
  topLinks: TopLinkView[];
}
