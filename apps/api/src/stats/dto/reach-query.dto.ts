import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength } from 'class-validator';

import { MAX_REACH_LINKS } from '@app/stats';

import { DayRangeQueryDto } from './stats-query.dto';

/** `?links= | campaign= | channel=` and `from`, `to` of `GET /api/stats/reach` (checked by ReachService). */
export class ReachQueryDto extends DayRangeQueryDto {
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
}
