import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength } from 'class-validator';

import { MAX_RANGE_DAYS, MAX_REACH_LINKS } from '@app/stats';

/** `?links= | campaign= | channel=` and `from`, `to` of `GET /api/stats/reach` (checked by ReachService). */
export class ReachQueryDto {
  @ApiPropertyOptional({
    description: `Your short links' ids, comma-separated (at most ${MAX_REACH_LINKS}, each once). Exactly one of links, campaign and channel.`,
    example: '42,43,57',
  })
  @IsOptional()
  @IsString()
  @MaxLength(1000)
  links?: string;

  @ApiPropertyOptional({
    description: `One of your campaigns' id: its short links (at most ${MAX_REACH_LINKS}).`,
    example: '7',
  })
  @IsOptional()
  @IsString()
  @MaxLength(20)
  campaign?: string;

  @ApiPropertyOptional({
    description: `One of your channels' id: its short links, bio pages and QR codes (at most ${MAX_REACH_LINKS}).`,
    example: '3',
  })
  @IsOptional()
  @IsString()
  @MaxLength(20)
  channel?: string;

  @ApiPropertyOptional({
    description: `First day (UTC, YYYY-MM-DD, included). Default: 29 days before to. At most ${MAX_RANGE_DAYS} days from to. Raised to the first day the plan keeps (retention).`,
    example: '2026-11-01',
    format: 'date',
  })
  @IsOptional()
  @IsString()
  @MaxLength(10)
  from?: string;

  @ApiPropertyOptional({
    description: 'Last day (UTC, YYYY-MM-DD, included). Default: today.',
    example: '2026-11-30',
    format: 'date',
  })
  @IsOptional()
  @IsString()
  @MaxLength(10)
  to?: string;
}
