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
    format: 'date',
    description: 'First day of the period within the range (YYYY-MM-DD, UTC)',
  })
  date: string;
  @ApiProperty({ type: 'integer', description: 'Visits counted in the period' }) clicks: number;
  @ApiProperty({
    type: 'integer',
    description:
      'Distinct visitors over the period (union of its days’ HyperLogLog sketches, standard error 0.81 %), not a sum of daily counts',
  })
  uniqueClicks: number;
}

/** `data` of `GET /api/url/:id/stats` and `GET /api/qr/:id/stats`. */
export class RangeStatsView {
  @ApiProperty({
    example: '2026-11-01',
    format: 'date',
    description: 'First day answered: the one asked for, or raised to the first day the plan keeps',
  })
  from: string;
  @ApiProperty({ example: '2026-11-30', format: 'date', description: 'Last day answered' })
  to: string;
  @ApiProperty({ enum: INTERVALS }) interval: string;
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
