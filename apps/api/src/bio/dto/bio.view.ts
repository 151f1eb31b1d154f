import { ApiProperty } from '@nestjs/swagger';

import { formatDateTime } from '@app/common';
import { BIO_THEMES, BioPage, BioTheme, Link } from '@app/database';
import { LinkTotals } from '@app/stats';

import { statisticsView } from '../../stats/statistics.view';
import { BioLinkDto, BioSocialsDto } from './bio-parts.dto';

/** A bio page as `GET /api/bio` lists it and `GET /api/bio/:id` details it. */
export class BioView {
  @ApiProperty({ example: 12, description: 'Also its id as a channel item of type bio' })
  id: number;

  @ApiProperty({ example: 'My bio page' })
  name: string;

  @ApiProperty({ example: 'jane' })
  alias: string;

  @ApiProperty({
    example: 'https://short.example/jane',
    description: 'The page: <PUBLIC_URL or its branded domain>/<alias>',
  })
  url: string;

  @ApiProperty({
    type: String,
    nullable: true,
    example: 'https://go.example.com',
    description: 'Branded domain URL, null for PUBLIC_URL',
  })
  domain: string | null;

  @ApiProperty({ example: 'Jane Doe' })
  title: string;

  @ApiProperty({ example: 'Designer in Berlin' })
  description: string;

  @ApiProperty({ example: 'https://cdn.example/jane.jpg', description: '"" when none' })
  avatar: string;

  @ApiProperty({ enum: BIO_THEMES })
  theme: BioTheme;

  @ApiProperty({ type: [BioLinkDto] })
  links: BioLinkDto[];

  @ApiProperty({ type: BioSocialsDto })
  socials: Record<string, string>;

  @ApiProperty({ type: 'integer', description: 'Visits of the page and through its buttons' })
  clicks: number;

  @ApiProperty({ type: 'integer', description: 'Distinct visitors (approximate)' })
  uniqueClicks: number;

  @ApiProperty({ example: '2024-11-21 10:00:00', description: 'Creation date-time (UTC)' })
  date: string;
}

class BioStatisticsView extends statisticsView({
  topCountriesLimit: true,
  socialNetworks: false,
}) {}

/** `GET /api/bio/:id`: `{error, id, details, data}` (as `GET /api/url/:id`). */
export class BioReadView {
  @ApiProperty({ type: 'integer' }) id: number;
  @ApiProperty({ type: BioView }) details: BioView;
  @ApiProperty({ type: BioStatisticsView, description: 'The statistics of the page' })
  data: BioStatisticsView;
}

/** `POST /api/bio/add` and `PUT /api/bio/:id/update`: `{error, id, url}`. */
export class BioSavedView {
  @ApiProperty({ type: 'integer', example: 12 }) id: number;
  @ApiProperty({ example: 'https://short.example/jane', description: 'The page URL' })
  url: string;
}

/** The view of a bio page's two rows; `url` its page URL. */
export function bioView(
  link: Pick<Link, 'id' | 'alias' | 'title' | 'description' | 'createdAt'>,
  page: BioPage,
  url: string,
  domain: string | null,
  totals: LinkTotals | undefined,
): BioView {
  return {
    id: link.id,
    name: page.name,
    alias: link.alias,
    url,
    domain,
    title: link.title,
    description: link.description,
    avatar: page.avatar,
    theme: page.theme,
    links: page.links.map((l) => ({ title: l.title, url: l.url })),
    socials: { ...page.socials },
    clicks: totals?.clicks ?? 0,
    uniqueClicks: totals?.uniqueClicks ?? 0,
    date: formatDateTime(link.createdAt) as string,
  };
}
