import { ApiPropertyOptional, OmitType } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';

import { IsOptionalNotNull, PartialUpdateType } from '@app/common';
import { IsDomainRef } from '@app/links';

import { AddBioDto, BIO_DOC } from './add-bio.dto';
import { BioField } from './bio-field';
import { BioLinkDto, BioSocialsDto } from './bio-parts.dto';

/**
 * Every field optional (at least one); `name`, `title`, `description`, `avatar` and `theme` as on
 * add; `links` and `socials` replace the page's whole list.
 */
export class UpdateBioDto extends PartialUpdateType(
  OmitType(AddBioDto, ['alias', 'domain', 'links', 'socials']),
) {
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
