import { ApiProperty, ApiPropertyOptional, OmitType } from '@nestjs/swagger';

import { formatDateTime } from '@app/common';
import {
  DeepLink,
  DeviceTarget,
  GeoTarget,
  LanguageTarget,
  Link,
  LinkParameter,
  LinkStatus,
} from '@app/database';
import { LinkFlagView } from '@app/links';
import { LinkTotals } from '@app/stats';

import { statisticsView } from '../../stats/statistics.view';
import {
  DeepLinkDto,
  DeviceTargetDto,
  GeoTargetDto,
  LanguageTargetDto,
  LinkParameterDto,
  OPTION_DOC,
} from './link-options.dto';

/** `flag` of a link: what flagged one of its targets after it was made. */
export class LinkFlagDto {
  @ApiProperty({ description: "The threat feed's name, or `safe-browsing` for the online lookup" })
  source: string;
  @ApiProperty({ example: 'phishing' }) type: string;
  @ApiProperty({ example: '2024-11-21 10:00:00', description: 'When it was flagged (UTC)' })
  date: string;
}

/** A link item of `GET /api/urls`. */
export class LinkItemView {
  @ApiProperty({ type: 'integer' }) id: number;
  @ApiProperty() alias: string;
  @ApiProperty({ example: 'https://short.example/abc123' }) shorturl: string;
  @ApiProperty({ example: 'https://example.com/page' }) longurl: string;
  @ApiProperty() title: string;
  @ApiProperty() description: string;
  @ApiProperty({ type: 'integer', description: 'Visits counted so far' }) clicks: number;
  @ApiProperty({ type: 'integer', description: 'Distinct visitors (approximate)' })
  uniqueClicks: number;
  @ApiProperty({ example: '2024-11-21 10:00:00' }) date: string;
  @ApiProperty({
    type: String,
    nullable: true,
    example: 'brand.example',
    description:
      'Host name of the branded domain the link lives on, null for the main domain (in the details of GET /api/url/:id: the domain URL)',
  })
  domain: string | null;
  @ApiProperty({ type: 'integer', nullable: true, description: 'Campaign id, or null' })
  campaign: number | null;
  @ApiProperty({ type: 'integer', isArray: true, description: 'Ids of the channels it is in' })
  channels: number[];
  @ApiProperty({
    enum: ['public', 'private', 'flagged'],
    description:
      '`flagged` while a threat feed or the online lookup flags one of its targets (it answers the 451 warning ' +
      'page; see `flag`); otherwise its visibility as set (`public`, `private`)',
  })
  status: LinkStatus | 'flagged';
  @ApiProperty({
    type: () => LinkFlagDto,
    nullable: true,
    description:
      'What flagged the link after it was made (null when nothing does); an admin clears it with POST /api/admin/url/:id/allow',
  })
  flag: LinkFlagView | null;
}

/** `details` of `GET /api/url/:id`: the item plus its settings (`domain` here is the URL). */
export class LinkDetailsView extends OmitType(LinkItemView, ['domain'] as const) {
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
  @ApiProperty({ type: [GeoTargetDto], nullable: true, description: OPTION_DOC.geotarget })
  geotarget: GeoTarget[] | null;
  @ApiProperty({ type: [DeviceTargetDto], nullable: true, description: OPTION_DOC.devicetarget })
  devicetarget: DeviceTarget[] | null;
  @ApiProperty({
    type: [LanguageTargetDto],
    nullable: true,
    description: OPTION_DOC.languagetarget,
  })
  languagetarget: LanguageTarget[] | null;
  @ApiProperty({ type: DeepLinkDto, nullable: true, description: OPTION_DOC.deeplink })
  deeplink: DeepLink | null;
  @ApiProperty({ type: [LinkParameterDto], nullable: true, description: OPTION_DOC.parameters })
  parameters: LinkParameter[] | null;
  @ApiProperty({ description: OPTION_DOC.forwardquery }) forwardquery: boolean;
  @ApiProperty({ type: String, nullable: true }) metatitle: string | null;
  @ApiProperty({ type: String, nullable: true }) metadescription: string | null;
  @ApiProperty({ type: String, nullable: true }) metaimage: string | null;
  @ApiProperty({ type: 'integer', nullable: true, description: OPTION_DOC.clicklimit })
  clicklimit: number | null;
  @ApiProperty({ type: String, nullable: true }) expirationredirect: string | null;
  @ApiProperty({ type: String, nullable: true, description: OPTION_DOC.fallbackurl })
  fallbackurl: string | null;
  @ApiProperty({ description: 'An admin disabled the link: it answers the 451 page' })
  disabled: boolean;
}

/** What a link item shows beyond the row: read in batches by LinkViews. */
export interface LinkItemExtras {
  shorturl: string;
  /** Host of its branded domain, or null. */
  host: string | null;
  channels: number[];
  totals: LinkTotals | undefined;
  /** Its active flag, or undefined. */
  flag: LinkFlagView | undefined;
}

/** The columns of a link its list item shows. */
export type LinkItemColumns = Pick<
  Link,
  'id' | 'alias' | 'url' | 'title' | 'description' | 'createdAt' | 'campaignId' | 'status'
>;

/** The list item of a link row. */
export function linkItemView(link: LinkItemColumns, extras: LinkItemExtras): LinkItemView {
  return {
    id: link.id,
    alias: link.alias,
    shorturl: extras.shorturl,
    longurl: link.url,
    title: link.title,
    description: link.description,
    clicks: extras.totals?.clicks ?? 0,
    uniqueClicks: extras.totals?.uniqueClicks ?? 0,
    date: formatDateTime(link.createdAt) as string,
    domain: extras.host,
    campaign: link.campaignId,
    channels: extras.channels,
    status: extras.flag ? 'flagged' : link.status,
    flag: extras.flag ?? null,
  };
}

/** `details`: the item and the link's settings (`domain`: its branded domain's URL, or null). */
export function linkDetailsView(
  item: LinkItemView,
  link: Link,
  domain: string | null,
  pixelIds: number[],
): LinkDetailsView {
  return {
    ...item,
    domain,
    type: link.type,
    overlay: link.overlayId,
    splash: link.splashId,
    expiry: formatDateTime(link.expiresAt),
    password: link.passwordHash !== null,
    pixels: pixelIds,
    campaign: link.campaignId,
    geotarget: link.geoTargets,
    devicetarget: link.deviceTargets,
    languagetarget: link.languageTargets,
    deeplink: link.deepLink,
    parameters: link.parameters,
    forwardquery: link.forwardQuery,
    metatitle: link.metaTitle,
    metadescription: link.metaDescription,
    metaimage: link.metaImage,
    clicklimit: link.clickLimit,
    expirationredirect: link.expirationRedirect,
    fallbackurl: link.fallbackUrl,
    disabled: link.disabledAt !== null,
  };
}

class LinkStatisticsView extends statisticsView({
  topCountriesLimit: false,
  socialNetworks: true,
}) {}

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

/** One answer of `POST /api/url/bulk`: the created link, or why this item was refused. */
export class BulkItemView {
  @ApiPropertyOptional({ type: 'integer', description: 'Set when the item was created' })
  id?: number;
  @ApiPropertyOptional({ description: 'Set when the item was created' }) shorturl?: string;
  @ApiPropertyOptional({ enum: [1], description: 'Set when the item was refused' }) error?: 1;
  @ApiPropertyOptional({ description: 'Why the item was refused (names the field)' })
  message?: string;
}

/** `POST /api/url/bulk`: `{error: 0, data: [...]}`, one entry per item, in order. */
export class BulkLinksView {
  @ApiProperty({ type: [BulkItemView] }) data: BulkItemView[];
}

/** `PUT /api/url/:id/update`: `{error, id, short, shorturl}`. */
export class LinkUpdatedView {
  @ApiProperty() id: number;
  @ApiProperty({ description: 'The alias' }) short: string;
  @ApiProperty() shorturl: string;
}
