import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Matches, Max, Min } from 'class-validator';

import { PageQueryDto } from '@app/common';

/** `YYYY-MM-DD` or `YYYY-MM-DD HH:MM:SS` (UTC): what `from` and `to` take (parseBound checks the calendar). */
export const AUDIT_DATE_PATTERN = /^\d{4}-\d{2}-\d{2}( \d{2}:\d{2}:\d{2})?$/;

/** An action (`link.update`) or every action on one type of resource (`link.*`). */
export const AUDIT_ACTION_PATTERN = /^[a-z][a-z_]*\.([a-z][a-z_]*|\*)$/;

const DATE_MESSAGE = (field: string) =>
  `${field} must be a date YYYY-MM-DD or a date-time YYYY-MM-DD HH:MM:SS (UTC)`;

/** `GET /api/audit`'s query: the page, and the filters (each optional, all of them apply). */
export class ListAuditDto extends PageQueryDto {
  @ApiPropertyOptional({
    example: '2026-11-01',
    description: 'Entries from this day (UTC, YYYY-MM-DD) or this second (YYYY-MM-DD HH:MM:SS) on',
  })
  @IsOptional()
  @IsString()
  @Matches(AUDIT_DATE_PATTERN, { message: DATE_MESSAGE('from') })
  from?: string;

  @ApiPropertyOptional({
    example: '2026-11-30',
    description:
      'Entries up to this day included (UTC, YYYY-MM-DD) or up to this second included (YYYY-MM-DD HH:MM:SS)',
  })
  @IsOptional()
  @IsString()
  @Matches(AUDIT_DATE_PATTERN, { message: DATE_MESSAGE('to') })
  to?: string;

  @ApiPropertyOptional({
    example: 'link.update',
    description:
      'One action (`link.update`), or every action on one type of resource with `<type>.*` (`link.*`)',
  })
  @IsOptional()
  @IsString()
  @Matches(AUDIT_ACTION_PATTERN, {
    message: 'action must be an action like link.update, or <type>.* like link.*',
  })
  action?: string;

  @ApiPropertyOptional({ example: 3, description: "The actor's user id", minimum: 1 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(2_147_483_647)
  actor?: number;
}
