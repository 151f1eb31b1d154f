import { ApiHideProperty, ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Allow, IsDefined, IsString, Matches, MaxLength } from 'class-validator';

import { IsOptionalNotNull } from '@app/common';

import { NO_CONTROL_CHARS } from '../qr-payload';
import {
  COLOR_DESCRIPTION,
  DATA_DESCRIPTION,
  LOGO_DESCRIPTION,
  QR_DATA_SCHEMA,
} from './create-qr.dto';

/**
 * `data` is required and checked against the code's type; the type itself cannot change (a body
 * with `type` is a 400). Sending background, foreground or logo re-renders the image.
 */
export class UpdateQrDto {
  @ApiProperty({
    description: `The new content, in the shape of the code's type. ${DATA_DESCRIPTION}`,
    ...QR_DATA_SCHEMA,
  })
  @IsDefined({ message: 'required' })
  data: unknown;

  @ApiPropertyOptional({ description: COLOR_DESCRIPTION, maxLength: 32 })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(32)
  background?: string;

  @ApiPropertyOptional({ description: COLOR_DESCRIPTION, maxLength: 32 })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(32)
  foreground?: string;

  @ApiPropertyOptional({
    description: `${LOGO_DESCRIPTION} Omit to keep the current logo.`,
    maxLength: 2048,
  })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(2048)
  logo?: string;

  @ApiPropertyOptional({ maxLength: 255 })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(255)
  @Matches(NO_CONTROL_CHARS, { message: 'must not contain control characters' })
  name?: string;

  /** Not updatable: declared only so that the service can answer "type: cannot be changed". */
  @ApiHideProperty()
  @Allow()
  type?: unknown;
}
