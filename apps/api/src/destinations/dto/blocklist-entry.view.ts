import { ApiProperty } from '@nestjs/swagger';

import { formatDateTime } from '@app/common';
import { BlocklistEntry } from '@app/database';

/** An entry admins added (those of BLOCKLIST_FILE are not listed: the file is the operator's). */
export class BlocklistEntryView {
  @ApiProperty({ type: 'integer', example: 1 })
  id: number;

  @ApiProperty({ example: 'bad.example', description: 'A host, or keyword:<word>' })
  entry: string;

  @ApiProperty({ example: '2024-11-21 10:00:00' })
  date: string;
}

export function blocklistEntryView(e: BlocklistEntry): BlocklistEntryView {
  return { id: e.id, entry: e.entry, date: formatDateTime(e.createdAt) as string };
}

/** `POST /api/admin/blocklist/add`: `{error, id, entry}` (the entry as stored). */
export class BlocklistEntryAddedView {
  @ApiProperty({ type: 'integer' }) id: number;
  @ApiProperty({ example: 'bad.example' }) entry: string;
}
