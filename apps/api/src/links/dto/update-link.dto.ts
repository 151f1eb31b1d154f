import { ApiPropertyOptional, OmitType } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';

import { IsOptionalNotNull, IsPositiveId, PartialUpdateType } from '@app/common';
import { IsDomainRef, LinkField } from '@app/links';

import { CreateLinkDto, DOC } from './create-link.dto';
import { IsLinkType } from './link-fields';

/**
 * Every field optional; only what is sent changes. `url`, `title`, `description` and the link
 * options are as on create; the fields below say what a change does (`type` refuses null, which
 * create takes for the default).
 */
export class UpdateLinkDto extends PartialUpdateType(
  OmitType(CreateLinkDto, [
    'custom',
    'domain',
    'type',
    'expiry',
    'password',
    'pixels',
    'campaign',
    'channel',
  ]),
) {
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
