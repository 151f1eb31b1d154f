import { ApiProperty } from '@nestjs/swagger';

import { IMPORT_SOURCES, LinkImport } from '@app/database';

export class ImportStartedView {
  @ApiProperty({ example: 7, description: 'The import id (GET /api/import/:id)' })
  id: number;
}

export class ImportErrorView {
  @ApiProperty({
    example: 12,
    description:
      'line of the file where the row ends (the header is line 1); JSON: the position in links, from 1',
  })
  line: number;

  @ApiProperty({ example: 'url: url must be an absolute http(s) URL of at most 2048 characters' })
  message: string;
}

export class ImportView {
  @ApiProperty({ example: 7 })
  id: number;

  @ApiProperty({ enum: IMPORT_SOURCES })
  source: string;

  @ApiProperty({ enum: ['queued', 'running', 'done', 'failed'] })
  status: string;

  @ApiProperty({ example: 1000, description: 'rows read so far' })
  total: number;

  @ApiProperty({ example: 990 })
  created: number;

  @ApiProperty({
    example: 5,
    description: 'rows whose alias (or, without an alias, whose URL) you have already',
  })
  skipped: number;

  @ApiProperty({ example: 5, description: 'invalid or refused rows' })
  failed: number;

  @ApiProperty({ type: [ImportErrorView], description: 'the first 100 row errors' })
  errors: ImportErrorView[];

  @ApiProperty({
    type: String,
    nullable: true,
    example: null,
    description: 'why the import stopped (status failed): an unreadable file, or the plan limit',
  })
  message: string | null;
}

export function importView(i: LinkImport): ImportView {
  return {
    id: i.id,
    source: i.source,
    status: i.status,
    total: i.total,
    created: i.created,
    skipped: i.skipped,
    failed: i.failed,
    errors: i.errors,
    message: i.message,
  };
}
