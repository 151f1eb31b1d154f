import { ApiProperty } from '@nestjs/swagger';

import { CampaignView } from './campaign.view';

/** Create / update answer: the documented `domain` (holding the name) and also `name`. */
export class CampaignSavedView extends CampaignView {
  @ApiProperty({
    example: 'Spring sale',
    description: 'The campaign name (documented quirk: returned under `domain`)',
  })
  domain: string;
}
