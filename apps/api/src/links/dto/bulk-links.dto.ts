import { ApiProperty } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray } from 'class-validator';

import { CreateLinkDto } from './create-link.dto';

/** `POST /api/url/bulk`: up to 100 `url/add` bodies, each validated on its own. */
export class BulkLinksDto {
  @ApiProperty({
    type: [CreateLinkDto],
    minItems: 1,
    maxItems: 100,
    description:
      'Each item is a url/add body, validated and created on its own: a bad item is reported in its place and does not stop the others.',
  })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(100)
  urls: unknown[];
}
