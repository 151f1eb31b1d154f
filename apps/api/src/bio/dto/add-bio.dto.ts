import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

import { IsOptionalNotNull } from '@app/common';
import { BIO_THEMES, BioTheme } from '@app/database';
import { IsDomainRef } from '@app/links';

import { BioField } from './bio-field';
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
  @BioField.name()
  name: string;

  @ApiPropertyOptional({ example: 'jane', description: BIO_DOC.alias })
  @IsOptionalNotNull()
  @BioField.alias()
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
  @BioField.title()
  title?: string;

  @ApiPropertyOptional({
    example: 'Designer in Berlin',
    maxLength: 500,
    description: 'Text under the heading',
  })
  @IsOptionalNotNull()
  @BioField.description()
  description?: string;

  @ApiPropertyOptional({
    example: 'https://cdn.example/jane.jpg',
    maxLength: 2048,
    description: 'Picture shown at the top: an absolute http(s) image URL ("" for none)',
  })
  @IsOptionalNotNull()
  @BioField.avatar()
  avatar?: string;

  @ApiPropertyOptional({ enum: BIO_THEMES, default: 'light' })
  @IsOptionalNotNull()
  @BioField.theme()
  theme?: BioTheme;

  @ApiPropertyOptional({ type: [BioLinkDto], maxItems: 50, description: BIO_DOC.links })
  @IsOptionalNotNull()
  @BioField.links()
  links?: BioLinkDto[];

  @ApiPropertyOptional({ type: BioSocialsDto, description: BIO_DOC.socials })
  @IsOptionalNotNull()
  @BioField.socials()
  socials?: BioSocialsDto;
}
