import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsString, Length, Matches } from 'class-validator';

import { IsOptionalNotNull } from '@app/common';

import { TAG_MESSAGE, TAG_PATTERN } from './add-pixel.dto';

/** `tag` required, `name` optional; the type cannot change. */
export class UpdatePixelDto {
  @ApiPropertyOptional({ example: 'Shop pixel', minLength: 1, maxLength: 100 })
  @IsOptionalNotNull()
  @IsString()
  @Length(1, 100, { message: 'name must be 1 to 100 characters' })
  name?: string;

  @ApiProperty({ example: 'AW-123456789', pattern: '^[A-Za-z0-9_.:-]{1,255}$' })
  @IsString()
  @Matches(TAG_PATTERN, { message: TAG_MESSAGE })
  tag: string;
}
