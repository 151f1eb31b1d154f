import { ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsObject,
  IsString,
  MinLength,
} from 'class-validator';

import { IsOptionalNotNull } from '@app/common';

/**
 * The JSON form of an import: `{links: [...]}`, or `{csv: "..."}` (the text of a CSV file, up to the
 * 1 MB of a JSON body; larger files are sent as text/csv).
 */
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

  @ApiPropertyOptional({
    type: 'string',
    minLength: 1,
    example: 'url,alias,title\nhttps://example.com/a,spring,Spring sale\n',
    description:
      'The text of a CSV file, as a text/csv body would send it (header row first), for clients that send only JSON; at most 1 MB as JSON. Send either links or csv.',
  })
  @IsOptionalNotNull()
  @IsString()
  @MinLength(1, { message: 'The CSV body is empty' })
  csv?: string;
}
