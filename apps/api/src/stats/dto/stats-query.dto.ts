import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength } from 'class-validator';

import { INTERVALS, MAX_RANGE_DAYS } from '@app/stats';

/** `?from=&to=&interval=` of the statistics routes (checked by `parseRange`: 400 naming the field). */
export class StatsQueryDto {
  @ApiPropertyOptional({
    description: `First day (UTC, YYYY-MM-DD, included). Default: 29 days before to (interval=hour: 6). At most ${MAX_RANGE_DAYS} days from to (interval=hour: 7). Raised to the first day the plan keeps (retention).`,
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

  @ApiPropertyOptional({
    enum: INTERVALS,
    description:
      'Period of each series point: day (default), week (Monday to Sunday), month, or hour (ranges of at most 7 days; hours of the last 8 days are kept, from is raised to that); all UTC. The first and last periods may be partial: each point is labelled with its first day within the range (an hour: YYYY-MM-DDTHH:00:00Z).',
  })
  @IsOptional()
  @IsString()
  @MaxLength(10)
  interval?: string;
}
