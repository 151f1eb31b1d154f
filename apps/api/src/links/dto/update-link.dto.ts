import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';

import { IsOptionalNotNull, IsPositiveId } from '@app/common';
import { IsDomainRef, LinkField } from '@app/links';

import { DOC } from './create-link.dto';
import { IsLinkType } from './link-fields';
import { LinkOptionsDto } from './link-options.dto';

/** Every field optional; only what is sent changes. */
export class UpdateLinkDto extends LinkOptionsDto {
  @ApiPropertyOptional({ description: DOC.url, maxLength: 2048 })
  @IsOptionalNotNull()
  @LinkField.url()
  url?: string;

  @ApiPropertyOptional({ description: `New alias. ${DOC.custom}`, minLength: 3, maxLength: 64 })
  @IsOptionalNotNull()
  @LinkField.custom()
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
  @LinkField.expiry()
  expiry?: string | null;

  @ApiPropertyOptional({ description: `${DOC.password} "" removes the password.`, maxLength: 128 })
  @IsOptionalNotNull()
  @LinkField.text(128)
  password?: string;

  @LinkField.label(255)
  title?: string;

  @LinkField.label(500)
  description?: string;

  @ApiPropertyOptional({
    description: `${DOC.pixels}. Replaces the link's pixels; [] removes them.`,
    type: [Number],
  })
  @IsOptionalNotNull()
  @LinkField.pixels()
  pixels?: number[];

  @ApiPropertyOptional({
    description: `${DOC.campaign}. null takes the link out of its campaign.`,
    type: 'integer',
    nullable: true,
  })
  @IsOptional()
  @IsPositiveId()
  campaign?: number | null;

  @ApiPropertyOptional({
    description: `${DOC.channel} (in addition to channels it is already in)`,
    type: 'integer',
  })
  @IsOptionalNotNull()
  @IsPositiveId()
  channel?: number;
}
