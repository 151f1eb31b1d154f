import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsString, Length, Matches, MaxLength } from 'class-validator';

import { IsOptionalNotNull } from '@app/common';

export const COLOR_PATTERN = /^#[0-9A-Fa-f]{6}$/;
export const COLOR_MESSAGE = 'color must be a HEX colour #RRGGBB';

export class AddChannelDto {
  @ApiProperty({ example: 'Newsletter', minLength: 1, maxLength: 100 })
  @IsString()
  @Length(1, 100, { message: 'name must be 1 to 100 characters' })
  name: string;

  @ApiPropertyOptional({
    example: 'Links shared in the weekly newsletter',
    maxLength: 500,
    default: '',
  })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(500, { message: 'description must be at most 500 characters' })
  description?: string;

  @ApiPropertyOptional({
    example: '#1e90ff',
    pattern: '^#[0-9A-Fa-f]{6}$',
    description: 'Badge colour.',
    default: '#000000',
  })
  @IsOptionalNotNull()
  @IsString()
  @Matches(COLOR_PATTERN, { message: COLOR_MESSAGE })
  color?: string;

  @ApiPropertyOptional({ example: false, default: false })
  @IsOptionalNotNull()
  @IsBoolean()
  starred?: boolean;
}
