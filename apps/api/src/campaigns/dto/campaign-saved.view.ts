import { ApiProperty } from '@nestjs/swagger';

import { PublicUrls } from '@app/common';
import { Campaign } from '@app/database';

import { CampaignView, campaignView } from './campaign.view';

/** Create / update answer: the documented `domain` (holding the name) and also `name`. */
export class CampaignSavedView extends CampaignView {
  @ApiProperty({
    example: 'Spring sale',
    description: 'The campaign name (documented quirk: returned under `domain`)',
  })
  domain: string;
}

/** The create / update answer of a campaign row. */
export function campaignSavedView(c: Campaign, urls: PublicUrls): CampaignSavedView {
  const { id, ...rest } = campaignView(c, urls);
  return { id, domain: c.name, ...rest };
}
