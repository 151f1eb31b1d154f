import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';

import { Scope, SCOPES } from '@app/common';

import { KeyField } from './key-fields';

export const KEY_DOC = {
  name: 'What the key is for (1 to 64 characters), shown in the list',
  scopes:
    "What the key may do: `<area>:read` or `<area>:write` (write includes read), or `*` (whatever its creator may do in the workspace). Never beyond the creator's role, nor, when a named key makes the key, beyond that key's scopes (`*` only from a `*` key or the personal key).",
  expires:
    'When the key stops working (401 `API key has expired`): a date-time in the future, `YYYY-MM-DD HH:MM:SS` (UTC) or ISO 8601 with an offset. Without it (or null) the key does not expire.',
};

export class AddKeyDto {
  @ApiProperty({ description: KEY_DOC.name, example: 'CI deploys', minLength: 1, maxLength: 64 })
  @KeyField.name()
  name: string;

  @ApiProperty({
    description: KEY_DOC.scopes,
    type: [String],
    enum: SCOPES,
    example: ['links:write', 'stats:read'],
    minItems: 1,
    maxItems: SCOPES.length,
  })
  @KeyField.scopes()
  scopes: Scope[];

  @ApiPropertyOptional({
    description: KEY_DOC.expires,
    type: String,
    nullable: true,
    example: '2030-01-31 00:00:00',
  })
  @IsOptional()
  @KeyField.expires()
  expires?: string | null;
}
