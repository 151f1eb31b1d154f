import { ApiProperty } from '@nestjs/swagger';

import { PublicUrls } from '@app/common';
import { Campaign } from '@app/database';

/**
 * A campaign: list entry and create / update answer. The name comes under the documented
 * `domain` (a quirk of version 3) and also under `name`.
 */
export class CampaignView {
  @ApiProperty({ type: 'integer', example: 1 })
  id: number;

  @ApiProperty({
    example: 'Spring sale',
    description: 'The campaign name (documented quirk: returned under `domain`)',
  })
  domain: string;

  @ApiProperty({ example: 'Spring sale' })
  name: string;

  @ApiProperty({ example: false })
  public: boolean;

  @ApiProperty({
    oneOf: [
      { type: 'string', example: 'https://short.example/r/spring-sale' },
      { type: 'boolean', enum: [false] },
    ],
    description: '<PUBLIC_URL>/r/<slug>, or false when the campaign has no slug',
  })
  rotator: string | false;

  @ApiProperty({
    example: 'https://short.example/u/spring-sale-1',
    description: '<PUBLIC_URL>/u/<slug or slugified name>-<id>',
  })
  list: string;
}

/** The view of a campaign row. */
export function campaignView(c: Campaign, urls: PublicUrls): CampaignView {
  return {
    id: c.id,
    domain: c.name,
    name: c.name,
    public: c.public,
    rotator: urls.rotator(c.slug),
    list: urls.campaignList(c),
  };
}
