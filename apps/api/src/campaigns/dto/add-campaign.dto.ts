import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsString, Length, Matches } from 'class-validator';

import { IsOptionalNotNull } from '@app/common';

export const SLUG_PATTERN = /^(|[a-z0-9-]{3,50})$/;
export const SLUG_MESSAGE = 'slug must be 3 to 50 of a-z, 0-9 and - (or "" for none)';

export class AddCampaignDto {
  @ApiPropertyOptional({
    example: 'Spring sale',
    minLength: 1,
    maxLength: 100,
    description: 'Default: empty',
  })
  @IsOptionalNotNull()
  @IsString()
  @Length(1, 100, { message: 'name must be 1 to 100 characters' })
  name?: string;

  @ApiPropertyOptional({
    example: 'spring-sale',
    pattern: '^[a-z0-9-]{3,50}$',
    description:
      'Rotator slug, unique across the service (409 when taken). Without it the campaign has no rotator.',
  })
  @IsOptionalNotNull()
  @IsString()
  @Matches(SLUG_PATTERN, { message: SLUG_MESSAGE })
  slug?: string;

  @ApiPropertyOptional({
    example: false,
    description: 'Whether the list page is public.',
    default: false,
  })
  @IsOptionalNotNull()
  @IsBoolean()
  public?: boolean;
}
