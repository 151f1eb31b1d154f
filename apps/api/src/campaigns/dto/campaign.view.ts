import { ApiProperty } from '@nestjs/swagger';

import { PublicUrls } from '@app/common';
import { Campaign } from '@app/database';

/** A campaign list entry. */
export class CampaignView {
  @ApiProperty({ example: 1 })
  id: number;

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

/** The list entry of a campaign row. */
export function campaignView(c: Campaign, urls: PublicUrls): CampaignView {
  return {
    id: c.id,
    name: c.name,
    public: c.public,
    rotator: urls.rotator(c.slug),
    list: urls.campaignList(c),
  };
}
