import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';

import { IsOptionalNotNull } from '@app/common';
import { BIO_THEMES, BioTheme } from '@app/database';
import { IsDomainRef } from '@app/links';

import { BIO_DOC } from './add-bio.dto';
import { BioField } from './bio-field';
import { BioLinkDto, BioSocialsDto } from './bio-parts.dto';

/** Every field optional (at least one); `links` and `socials` replace the page's whole list. */
export class UpdateBioDto {
  @ApiPropertyOptional({ example: 'My bio page', minLength: 1, maxLength: 100 })
  @IsOptionalNotNull()
  @BioField.name()
  name?: string;

  @ApiPropertyOptional({
    example: 'jane',
    description: `${BIO_DOC.alias} The old address stops answering.`,
  })
  @IsOptionalNotNull()
  @BioField.alias()
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
  @BioField.title()
  title?: string;

  @ApiPropertyOptional({ example: 'Designer in Berlin', maxLength: 500 })
  @IsOptionalNotNull()
  @BioField.description()
  description?: string;

  @ApiPropertyOptional({
    example: 'https://cdn.example/jane.jpg',
    maxLength: 2048,
    description: 'Absolute http(s) image URL; "" removes the picture',
  })
  @IsOptionalNotNull()
  @BioField.avatar()
  avatar?: string;

  @ApiPropertyOptional({ enum: BIO_THEMES })
  @IsOptionalNotNull()
  @BioField.theme()
  theme?: BioTheme;

  @ApiPropertyOptional({
    type: [BioLinkDto],
    maxItems: 50,
    description: `${BIO_DOC.links} Replaces the whole list.`,
  })
  @IsOptionalNotNull()
  @BioField.links()
  links?: BioLinkDto[];

  @ApiPropertyOptional({
    type: BioSocialsDto,
    description: `${BIO_DOC.socials} Replaces the whole set.`,
  })
  @IsOptionalNotNull()
  @BioField.socials()
  socials?: BioSocialsDto;
}
