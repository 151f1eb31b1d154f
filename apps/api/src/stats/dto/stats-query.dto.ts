import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength } from 'class-validator';

import { INTERVALS, MAX_RANGE_DAYS } from '@app/stats';

/**
 * `?from=&to=` of every range of days (checked by `parseRange`: 400 naming the field): the
 * statistics routes and reach.
 */
export class DayRangeQueryDto {
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

/** `?from=&to=&interval=` of the statistics routes. */
export class StatsQueryDto extends DayRangeQueryDto {
  @ApiPropertyOptional({
    enum: INTERVALS,
    description:
      'Period of each series point: day (default), week (Monday to Sunday), month, or hour (ranges of at most 7 days, from defaulting to 6 days before to; hours of the last 8 days are kept, from is raised to that); all UTC. The first and last periods may be partial: each point is labelled with its first day within the range (an hour: YYYY-MM-DDTHH:00:00Z).',
  })
  @IsOptional()
  @IsString()
  @MaxLength(10)
  interval?: string;
}
