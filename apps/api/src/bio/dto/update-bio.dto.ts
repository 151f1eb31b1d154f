import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsIn,
  IsObject,
  IsOptional,
  IsString,
  Length,
  MaxLength,
  ValidateNested,
} from 'class-validator';

import { IsOptionalNotNull } from '@app/common';
import { BIO_THEMES, BioTheme } from '@app/database';

import { IsDomainRef } from '../../links/domain-ref';
import { IsImageUrl } from '../bio-fields';
import { BIO_DOC } from './add-bio.dto';
import { BioLinkDto, BioSocialsDto } from './bio-parts.dto';

/** Every field optional (at least one); `links` and `socials` replace the page's whole list. */
export class UpdateBioDto {
  @ApiPropertyOptional({ example: 'My bio page', minLength: 1, maxLength: 100 })
  @IsOptionalNotNull()
  @IsString()
  @Length(1, 100, { message: 'name must be 1 to 100 characters' })
  name?: string;

  @ApiPropertyOptional({
    example: 'jane',
    description: `${BIO_DOC.alias} The old address stops answering.`,
  })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(64, { message: 'alias must be 3 to 64 characters of A-Z, a-z, 0-9, _ and -' })
  alias?: string;

  @ApiPropertyOptional({
    oneOf: [{ type: 'integer' }, { type: 'string' }],
    nullable: true,
    example: 'go.example.com',
    description: `${BIO_DOC.domain} null moves the page back to PUBLIC_URL.`,
  })
  @IsOptional()
  @IsDomainRef()
  domain?: number | string | null;

  @ApiPropertyOptional({ example: 'Jane Doe', maxLength: 255 })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(255, { message: 'title must be at most 255 characters' })
  title?: string;

  @ApiPropertyOptional({ example: 'Designer in Berlin', maxLength: 500 })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(500, { message: 'description must be at most 500 characters' })
  description?: string;

  @ApiPropertyOptional({
    example: 'https://cdn.example/jane.jpg',
    maxLength: 2048,
    description: 'Absolute http(s) image URL; "" removes the picture',
  })
  @IsOptionalNotNull()
  @IsString()
  @IsImageUrl()
  avatar?: string;

  @ApiPropertyOptional({ enum: BIO_THEMES })
  @IsOptionalNotNull()
  @IsIn(BIO_THEMES, { message: 'theme must be one of light, dark' })
  theme?: BioTheme;

  @ApiPropertyOptional({
    type: [BioLinkDto],
    maxItems: 50,
    description: `${BIO_DOC.links} Replaces the whole list.`,
  })
  @IsOptionalNotNull()
  @IsArray({ message: 'links must be an array of {title, url}' })
  @ArrayMaxSize(50, { message: 'links must have at most 50 entries' })
  @ValidateNested({ each: true })
  @Type(() => BioLinkDto)
  links?: BioLinkDto[];

  @ApiPropertyOptional({
    type: BioSocialsDto,
    description: `${BIO_DOC.socials} Replaces the whole set.`,
  })
  @IsOptionalNotNull()
  @IsObject({ message: 'socials must be an object {network: url}' })
  @ValidateNested()
  @Type(() => BioSocialsDto)
  socials?: BioSocialsDto;
}
