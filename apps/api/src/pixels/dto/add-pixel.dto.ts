import { ApiProperty } from '@nestjs/swagger';
import { IsIn, IsString, Length, Matches } from 'class-validator';

import { PIXEL_TYPES, PixelType } from '@app/database';

export const TAG_PATTERN = /^[A-Za-z0-9_.:-]{1,255}$/;
export const TAG_MESSAGE = 'tag must be 1 to 255 of A-Z, a-z, 0-9, _ . : -';

export class AddPixelDto {
  @ApiProperty({ enum: PIXEL_TYPES, example: 'vendor01pixel' })
  @IsString()
  @IsIn(PIXEL_TYPES, { message: `type must be one of ${PIXEL_TYPES.join(', ')}` })
  type: PixelType;

  @ApiProperty({ example: 'Shop pixel', minLength: 1, maxLength: 100 })
  @IsString()
  @Length(1, 100, { message: 'name must be 1 to 100 characters' })
  name: string;

  @ApiProperty({
    example: 'AW-123456789',
    pattern: '^[A-Za-z0-9_.:-]{1,255}$',
    description:
      'The pixel id / tag code. It is written into HTML pages, so nothing but [A-Za-z0-9_.:-] is accepted.',
  })
  @IsString()
  @Matches(TAG_PATTERN, { message: TAG_MESSAGE })
  tag: string;
}
