import { ApiProperty } from '@nestjs/swagger';

import { formatDateTime, Scope, SCOPES } from '@app/common';
import { ApiKey } from '@app/database';

/** A named key as listed: never the key itself (shown once, by key/add) nor its digest. */
export class KeyView {
  @ApiProperty({ example: 1 })
  id: number;

  @ApiProperty({ example: 'CI deploys' })
  name: string;

  @ApiProperty({ example: 'lk_AbC1234', description: 'The first 10 characters of the key' })
  prefix: string;

  @ApiProperty({ type: [String], enum: SCOPES, example: ['links:write', 'stats:read'] })
  scopes: Scope[];

  @ApiProperty({ example: 1, description: "The workspace the key acts in (its owner's user id)" })
  workspace: number;

  @ApiProperty({
    type: String,
    nullable: true,
    example: '2030-01-31 00:00:00',
    description: 'Expiry date-time (UTC), or null: it does not expire',
  })
  expires: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    example: '2024-11-21 10:05:00',
    description: 'Last use (UTC), written at most once a minute; null: never used',
  })
  lastused: string | null;

  @ApiProperty({ example: '2024-11-21 10:00:00', description: 'Creation date-time (UTC)' })
  date: string;
}

export function keyView(k: ApiKey): KeyView {
  return {
    id: k.id,
    name: k.name,
    prefix: k.prefix,
    scopes: k.scopes as Scope[],
    workspace: k.workspaceId,
    expires: formatDateTime(k.expires),
    lastused: formatDateTime(k.lastUsed),
    date: formatDateTime(k.createdAt) as string,
  };
}
