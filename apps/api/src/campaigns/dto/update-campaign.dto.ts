import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsString, Length, Matches } from 'class-validator';

import { IsOptionalNotNull } from '@app/common';

import { SLUG_MESSAGE, SLUG_PATTERN } from './add-campaign.dto';

export class UpdateCampaignDto {
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

  @ApiPropertyOptional({ example: true })
  @IsOptionalNotNull()
  @IsBoolean()
  public?: boolean;
}
