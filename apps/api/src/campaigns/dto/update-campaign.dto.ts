import { ApiProperty, ApiPropertyOptional, PickType } from '@nestjs/swagger';
import { IsString, Length, Matches } from 'class-validator';

import { IsOptionalNotNull, PartialUpdateType } from '@app/common';

import { AddCampaignDto, SLUG_MESSAGE, SLUG_PATTERN } from './add-campaign.dto';

/** `name` required (as the published API says); `slug` documented for a change; `public` as on add. */
export class UpdateCampaignDto extends PartialUpdateType(PickType(AddCampaignDto, ['public'])) {
  @ApiProperty({ example: 'Spring sale', minLength: 1, maxLength: 100 })
  @IsString()
  @Length(1, 100, { message: 'name must be 1 to 100 characters' })
  name: string;

  @ApiPropertyOptional({
    example: 'spring-sale',
    pattern: '^[a-z0-9-]{3,50}$',
    description:
      'New rotator slug (409 when another campaign has it); "" removes the rotator; omitted keeps it.',
  })
  @IsOptionalNotNull()
  @IsString()
  @Matches(SLUG_PATTERN, { message: SLUG_MESSAGE })
  slug?: string;
}
