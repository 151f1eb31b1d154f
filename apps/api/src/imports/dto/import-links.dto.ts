import { ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsObject } from 'class-validator';

import { IsOptionalNotNull } from '@app/common';

/** The JSON form of an import (a CSV body is sent as text/csv instead). */
export class ImportLinksDto {
  @ApiPropertyOptional({
    type: 'array',
    items: { type: 'object', additionalProperties: true },
    minItems: 1,
    maxItems: 10000,
    example: [{ url: 'https://example.com/page', alias: 'page', title: 'A page' }],
    description:
      "Objects with the fields of the source's layout (csv: url, alias, title, description, domain, expiry; kutt: the API's link objects; …)",
  })
  @IsOptionalNotNull()
  @IsArray({ message: 'links must be an array of objects' })
  @ArrayMinSize(1, { message: 'links must hold at least one link' })
  @ArrayMaxSize(10000, { message: 'links may hold at most 10000 links (send a CSV file for more)' })
  @IsObject({ each: true, message: 'links must be an array of objects' })
  links?: Array<Record<string, unknown>>;
}
