import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsIn,
  IsObject,
  IsString,
  Length,
  MaxLength,
  ValidateNested,
} from 'class-validator';

import { IsOptionalNotNull } from '@app/common';
import { BIO_THEMES, BioTheme } from '@app/database';

import { IsDomainRef } from '../../links/domain-ref';
import { IsImageUrl } from '../bio-fields';
import { BioLinkDto, BioSocialsDto } from './bio-parts.dto';

export const BIO_DOC = {
  alias:
    'The page lives at <PUBLIC_URL or the branded domain>/<alias>. Same rules as a link alias (3 to 64 of A-Z, a-z, 0-9, _ and -, not reserved, unique across the service; plan feature "alias"); generated when absent.',
  domain:
    'One of your branded domains (id, host name or http(s)://host): the page is served there instead of PUBLIC_URL.',
  links:
    'The buttons of the page, in order. Each visit through one is counted in the page’s statistics. A button to one of your own short links is left out while that link is private.',
  socials: `Links to your profiles, one per network: {network: url}. Networks: see the properties.`,
};

export class AddBioDto {
  @ApiProperty({
    example: 'My bio page',
    minLength: 1,
    maxLength: 100,
    description: 'Name for you (the page shows `title`, or the name when untitled)',
  })
  @IsString()
  @Length(1, 100, { message: 'name must be 1 to 100 characters' })
  name: string;

  @ApiPropertyOptional({ example: 'jane', description: BIO_DOC.alias })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(64, { message: 'alias must be 3 to 64 characters of A-Z, a-z, 0-9, _ and -' })
  alias?: string;

  @ApiPropertyOptional({
    oneOf: [{ type: 'integer' }, { type: 'string' }],
    example: 'go.example.com',
    description: BIO_DOC.domain,
  })
  @IsOptionalNotNull()
  @IsDomainRef()
  domain?: number | string;

  @ApiPropertyOptional({ example: 'Jane Doe', maxLength: 255, description: 'Heading of the page' })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(255, { message: 'title must be at most 255 characters' })
  title?: string;

  @ApiPropertyOptional({
    example: 'Designer in Berlin',
    maxLength: 500,
    description: 'Text under the heading',
  })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(500, { message: 'description must be at most 500 characters' })
  description?: string;

  @ApiPropertyOptional({
    example: 'https://cdn.example/jane.jpg',
    maxLength: 2048,
    description: 'Picture shown at the top: an absolute http(s) image URL ("" for none)',
  })
  @IsOptionalNotNull()
  @IsString()
  @IsImageUrl()
  avatar?: string;

  @ApiPropertyOptional({ enum: BIO_THEMES, default: 'light' })
  @IsOptionalNotNull()
  @IsIn(BIO_THEMES, { message: 'theme must be one of light, dark' })
  theme?: BioTheme;

  @ApiPropertyOptional({ type: [BioLinkDto], maxItems: 50, description: BIO_DOC.links })
  @IsOptionalNotNull()
  @IsArray({ message: 'links must be an array of {title, url}' })
  @ArrayMaxSize(50, { message: 'links must have at most 50 entries' })
  @ValidateNested({ each: true })
  @Type(() => BioLinkDto)
  links?: BioLinkDto[];

  @ApiPropertyOptional({ type: BioSocialsDto, description: BIO_DOC.socials })
  @IsOptionalNotNull()
  @IsObject({ message: 'socials must be an object {network: url}' })
  @ValidateNested()
  @Type(() => BioSocialsDto)
  socials?: BioSocialsDto;
}
