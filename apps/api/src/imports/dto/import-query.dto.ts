import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';

import { IMPORT_SOURCES, ImportSource } from '@app/database';

export class ImportQueryDto {
  @ApiPropertyOptional({
    enum: IMPORT_SOURCES,
    default: 'csv',
    description:
      'The column layout: csv (url, alias, title, description, domain, expiry), or the export of bitly, shlink, yourls or kutt',
  })
  @IsOptional()
  @IsIn(IMPORT_SOURCES, { message: `source must be one of ${IMPORT_SOURCES.join(', ')}` })
  source?: ImportSource;
}
