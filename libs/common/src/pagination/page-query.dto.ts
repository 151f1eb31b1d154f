import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';

/** `?limit=&page=` of every paginated list. Values that are not positive integers are a 400. */
export class PageQueryDto {
  @ApiPropertyOptional({
    description: 'Items per page (default 15, larger values are clamped to 100)',
    minimum: 1,
  })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(1_000_000_000)
  limit?: number;

  @ApiPropertyOptional({ description: 'Page requested (default 1)', minimum: 1 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(1_000_000_000)
  page?: number;
}
