import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';

import { IsOptionalNotNull, Scope, SCOPES } from '@app/common';

import { KEY_DOC } from './add-key.dto';
import { KeyField } from './key-fields';

/** Only the fields sent change (at least one); `expires: null` makes the key never expire. */
export class UpdateKeyDto {
  @ApiPropertyOptional({
    description: KEY_DOC.name,
    example: 'CI deploys',
    minLength: 1,
    maxLength: 64,
  })
  @IsOptionalNotNull()
  @KeyField.name()
  name?: string;

  @ApiPropertyOptional({
    description: `${KEY_DOC.scopes} In force on every api replica within a second.`,
    type: [String],
    enum: SCOPES,
    example: ['links:read'],
    minItems: 1,
    maxItems: SCOPES.length,
  })
  @IsOptionalNotNull()
  @KeyField.scopes()
  scopes?: Scope[];

  @ApiPropertyOptional({
    description: `${KEY_DOC.expires} null removes the expiry.`,
    type: String,
    nullable: true,
    example: '2031-01-31 00:00:00',
  })
  @IsOptional()
  @KeyField.expires()
  expires?: string | null;
}
