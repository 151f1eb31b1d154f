import { ApiProperty } from '@nestjs/swagger';

/** A link item of `GET /api/urls`. */
export class LinkItemView {
  @ApiProperty() id: number;
  @ApiProperty() alias: string;
  @ApiProperty({ example: 'https://short.example/abc123' }) shorturl: string;
  @ApiProperty({ example: 'https://example.com/page' }) longurl: string;
  @ApiProperty() title: string;
  @ApiProperty() description: string;
  @ApiProperty({ description: 'Visits counted so far' }) clicks: number;
  @ApiProperty({ description: 'Distinct visitors (approximate)' }) uniqueClicks: number;
  @ApiProperty({ example: '2024-11-21 10:00:00' }) date: string;
}

/** `details` of `GET /api/url/:id`: the item plus its settings. */
export class LinkDetailsView extends LinkItemView {
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Branded domain URL, null for the main domain',
  })
  domain: string | null;
  @ApiProperty({ enum: ['direct', 'frame', 'splash', 'overlay'] }) type: string;
  @ApiProperty({ type: Number, nullable: true, description: 'Overlay id (type overlay)' }) overlay:
    number | null;
  @ApiProperty({ type: Number, nullable: true, description: 'Splash page id (type splash)' })
  splash: number | null;
  @ApiProperty({ type: String, nullable: true, example: '2030-01-01 00:00:00' }) expiry:
    string | null;
  @ApiProperty({
    description: 'Whether visitors need a password (the password itself is never returned)',
  })
  password: boolean;
  @ApiProperty({ type: [Number] }) pixels: number[];
  @ApiProperty({ type: Number, nullable: true }) campaign: number | null;
}

class LinkStatisticsView {
  @ApiProperty() clicks: number;
  @ApiProperty() uniqueClicks: number;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' } }) topCountries: Record<
    string,
    string
  >;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' } }) topReferrers: Record<
    string,
    string
  >;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' } }) topBrowsers: Record<
    string,
    string
  >;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' } }) topOs: Record<
    string,
    string
  >;
  @ApiProperty({ example: { network01: 0, network02: 0, network03: 0 } }) socialCount: Record<
    string,
    number
  >;
}

/** `GET /api/url/:id`: `{error, id, details, data}`. */
export class LinkReadView {
  @ApiProperty() id: number;
  @ApiProperty({ type: LinkDetailsView }) details: LinkDetailsView;
  @ApiProperty({ type: LinkStatisticsView }) data: LinkStatisticsView;
}

/** `POST /api/url/add`: `{error, id, shorturl}`. */
export class LinkCreatedView {
  @ApiProperty() id: number;
  @ApiProperty({ example: 'https://short.example/abc123' }) shorturl: string;
}

/** `PUT /api/url/:id/update`: `{error, id, short, shorturl}`. */
export class LinkUpdatedView {
  @ApiProperty() id: number;
  @ApiProperty({ description: 'The alias' }) short: string;
  @ApiProperty() shorturl: string;
}
