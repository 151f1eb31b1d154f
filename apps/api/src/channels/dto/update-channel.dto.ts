import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsString, Length, Matches, MaxLength } from 'class-validator';

import { IsOptionalNotNull } from '@app/common';

import { COLOR_MESSAGE, COLOR_PATTERN } from './add-channel.dto';

/** All optional; at least one must be sent. */
export class UpdateChannelDto {
  @ApiPropertyOptional({ example: 'Newsletter', minLength: 1, maxLength: 100 })
  @IsOptionalNotNull()
  @IsString()
  @Length(1, 100, { message: 'name must be 1 to 100 characters' })
  name?: string;

  @ApiPropertyOptional({ example: 'Links shared in the weekly newsletter', maxLength: 500 })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(500, { message: 'description must be at most 500 characters' })
  description?: string;

  @ApiPropertyOptional({ example: '#1e90ff', pattern: '^#[0-9A-Fa-f]{6}$' })
  @IsOptionalNotNull()
  @IsString()
  @Matches(COLOR_PATTERN, { message: COLOR_MESSAGE })
  color?: string;

  @ApiPropertyOptional({ example: true })
  @IsOptionalNotNull()
  @IsBoolean()
  starred?: boolean;
}
