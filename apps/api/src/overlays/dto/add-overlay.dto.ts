import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsString, Length, Matches, MaxLength } from 'class-validator';

import { IsOptionalNotNull } from '@app/common';
import { OverlayType } from '@app/database';

import { IsOptionalUrl } from '../../link-pages/optional-url';
import { COLOR_PATTERN, OVERLAY_DOC, OVERLAY_POSITIONS, OVERLAY_TYPES } from './overlay-fields';

export class AddOverlayDto {
  @ApiProperty({ enum: OVERLAY_TYPES, description: OVERLAY_DOC.type })
  @IsIn(OVERLAY_TYPES, { message: 'type must be one of message, contact' })
  type: OverlayType;

  @ApiProperty({ example: 'Newsletter sign-up', minLength: 1, maxLength: 100 })
  @IsString()
  @Length(1, 100, { message: 'name must be 1 to 100 characters' })
  name: string;

  @ApiPropertyOptional({
    example: 'Get our weekly digest',
    maxLength: 1000,
    description: OVERLAY_DOC.message,
  })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(1000, { message: 'message must be at most 1000 characters' })
  message?: string;

  @ApiPropertyOptional({ example: 'Subscribe', maxLength: 100, description: OVERLAY_DOC.button })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(100, { message: 'button must be at most 100 characters' })
  button?: string;

  @ApiPropertyOptional({
    example: 'https://www.example.com/subscribe',
    maxLength: 2048,
    description: OVERLAY_DOC.link,
  })
  @IsOptionalNotNull()
  @IsOptionalUrl()
  link?: string;

  @ApiPropertyOptional({
    example: '#ffffff',
    pattern: COLOR_PATTERN.source,
    default: '#ffffff',
    description: OVERLAY_DOC.bgcolor,
  })
  @IsOptionalNotNull()
  @IsString()
  @Matches(COLOR_PATTERN, { message: 'bgcolor must be a HEX colour #RRGGBB' })
  bgcolor?: string;

  @ApiPropertyOptional({
    example: '#000000',
    pattern: COLOR_PATTERN.source,
    default: '#000000',
    description: OVERLAY_DOC.textcolor,
  })
  @IsOptionalNotNull()
  @IsString()
  @Matches(COLOR_PATTERN, { message: 'textcolor must be a HEX colour #RRGGBB' })
  textcolor?: string;

  @ApiPropertyOptional({
    example: '#0055ff',
    pattern: COLOR_PATTERN.source,
    default: '#0055ff',
    description: OVERLAY_DOC.buttoncolor,
  })
  @IsOptionalNotNull()
  @IsString()
  @Matches(COLOR_PATTERN, { message: 'buttoncolor must be a HEX colour #RRGGBB' })
  buttoncolor?: string;

  @ApiPropertyOptional({
    enum: OVERLAY_POSITIONS,
    default: 'bl',
    description: OVERLAY_DOC.position,
  })
  @IsOptionalNotNull()
  @IsIn(OVERLAY_POSITIONS, { message: 'position must be one of bl, br, tl, tr' })
  position?: string;
}
