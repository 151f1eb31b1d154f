import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';

import { IsOptionalNotNull, IsPositiveId } from '@app/common';
import { ALIAS_PATTERN, IsDomainRef, LinkField } from '@app/links';

import { IsLinkType } from './link-fields';
import { LinkOptionsDto } from './link-options.dto';

export const DOC = {
  url: 'Target: an absolute http(s) URL, at most 2048 characters (no credentials, no spaces)',
  custom:
    'Custom alias: 3-64 of A-Z a-z 0-9 _ -. Reserved words (api, auth, docs, health, q, r, u, static, assets, admin, login …) are refused; an alias in use is a 409. Needs the plan feature "alias". Without it a random alias of 6+ characters is generated.',
  domain:
    'One of your branded domains: its id (integer), host name (brand.example) or URL (https://brand.example). Otherwise a 400.',
  type: '"direct" (302, default), "frame" (target in a full-page frame), "splash" (your newest splash page first; 400 if you have none), "overlay" (target framed with your newest CTA overlay; 400 if none), or an overlay id (integer: that overlay of yours)',
  expiry:
    'Expiry date-time `YYYY-MM-DD HH:MM:SS` (UTC), in the future. Afterwards the short link answers 410.',
  password:
    'Visitors must enter this password first (stored as an argon2 hash). Empty = none. At most 128 characters.',
  pixels: 'Ids of your tracking pixels, fired on a short page before forwarding (at most 50)',
  campaign: 'Id of your campaign (the link joins its rotator and list page)',
  channel: 'Id of your channel: the link is assigned to it',
};

export class CreateLinkDto extends LinkOptionsDto {
  @ApiProperty({ description: DOC.url, example: 'https://example.com/page', maxLength: 2048 })
  @LinkField.url()
  url: string;

  @ApiPropertyOptional({
    description: DOC.custom,
    example: 'my-alias',
    minLength: 3,
    maxLength: 64,
    pattern: ALIAS_PATTERN.source,
  })
  @IsOptional()
  @LinkField.custom()
  custom?: string;

  @ApiPropertyOptional({
    description: DOC.domain,
    oneOf: [{ type: 'integer' }, { type: 'string' }],
    example: 'https://brand.example',
  })
  @IsOptional()
  @IsDomainRef()
  domain?: number | string;

  @ApiPropertyOptional({
    description: DOC.type,
    oneOf: [
      { type: 'string', enum: ['direct', 'frame', 'splash', 'overlay'] },
      { type: 'integer' },
    ],
    example: 'direct',
  })
  @IsOptional()
  @IsLinkType()
  type?: string | number;

  @ApiPropertyOptional({
    type: String,
    description: DOC.expiry,
    example: '2030-01-01 00:00:00',
    nullable: true,
  })
  @IsOptional()
  @LinkField.expiry()
  expiry?: string | null;

  @ApiPropertyOptional({ description: DOC.password, maxLength: 128 })
  @IsOptionalNotNull()
  @LinkField.text(128)
  password?: string;

  @LinkField.label(255)
  title?: string;

  @LinkField.label(500)
  description?: string;

  @ApiPropertyOptional({ description: DOC.pixels, type: [Number], example: [1, 2] })
  @IsOptionalNotNull()
  @LinkField.pixels()
  pixels?: number[];

  @ApiPropertyOptional({ description: DOC.campaign, type: 'integer' })
  @IsOptionalNotNull()
  @IsPositiveId()
  campaign?: number;

  @ApiPropertyOptional({ description: DOC.channel, type: 'integer' })
  @IsOptionalNotNull()
  @IsPositiveId()
  channel?: number;
}
