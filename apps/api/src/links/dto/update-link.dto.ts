import { ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  IsArray,
  IsInt,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
} from 'class-validator';

import { DATE_TIME_PATTERN, IsOptionalNotNull } from '@app/common';

import { ALIAS_PATTERN } from '../alias';
import { DOC } from './create-link.dto';
import { IsDomainRef } from '../domain-ref';
import { IsLinkType, IsTargetUrl } from './link-fields';
import { LinkOptionsDto } from './link-options.dto';

const MAX_INT = 2147483647;

/** Every field optional; only what is sent changes. */
export class UpdateLinkDto extends LinkOptionsDto {
  @ApiPropertyOptional({ description: DOC.url, maxLength: 2048 })
  @IsOptionalNotNull()
  @IsString()
  @IsTargetUrl()
  url?: string;

  @ApiPropertyOptional({ description: `New alias. ${DOC.custom}`, minLength: 3, maxLength: 64 })
  @IsOptionalNotNull()
  @IsString()
  @Matches(ALIAS_PATTERN, {
    message: 'custom must be 3 to 64 characters of A-Z, a-z, 0-9, _ and -',
  })
  custom?: string;

  @ApiPropertyOptional({
    description: `${DOC.domain} null moves the link back to the main domain.`,
    oneOf: [{ type: 'integer' }, { type: 'string' }],
    nullable: true,
  })
  @IsOptional()
  @IsDomainRef()
  domain?: number | string | null;

  @ApiPropertyOptional({
    description: DOC.type,
    oneOf: [
      { type: 'string', enum: ['direct', 'frame', 'splash', 'overlay'] },
      { type: 'integer' },
    ],
  })
  @IsOptionalNotNull()
  @IsLinkType()
  type?: string | number;

  @ApiPropertyOptional({
    type: String,
    description: `${DOC.expiry} null removes the expiry.`,
    nullable: true,
  })
  @IsOptional()
  @IsString()
  @Matches(DATE_TIME_PATTERN, { message: 'expiry must be a date-time YYYY-MM-DD HH:MM:SS' })
  expiry?: string | null;

  @ApiPropertyOptional({ description: `${DOC.password} "" removes the password.`, maxLength: 128 })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(128)
  password?: string;

  @ApiPropertyOptional({ maxLength: 255 })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(255)
  title?: string;

  @ApiPropertyOptional({ maxLength: 500 })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(500)
  description?: string;

  @ApiPropertyOptional({
    description: `${DOC.pixels}. Replaces the link's pixels; [] removes them.`,
    type: [Number],
  })
  @IsOptionalNotNull()
  @IsArray()
  @ArrayMaxSize(50)
  @IsInt({ each: true, message: 'pixels must be an array of pixel ids (integers)' })
  @Min(1, { each: true, message: 'pixels must be an array of pixel ids (integers)' })
  @Max(MAX_INT, { each: true, message: 'pixels must be an array of pixel ids (integers)' })
  pixels?: number[];

  @ApiPropertyOptional({
    description: `${DOC.campaign}. null takes the link out of its campaign.`,
    type: 'integer',
    nullable: true,
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(MAX_INT)
  campaign?: number | null;

  @ApiPropertyOptional({
    description: `${DOC.channel} (in addition to channels it is already in)`,
    type: 'integer',
  })
  @IsOptionalNotNull()
  @IsInt()
  @Min(1)
  @Max(MAX_INT)
  channel?: number;
}
