import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, MaxLength } from 'class-validator';

import { PageQueryDto } from '@app/common';

export class ListLinksDto extends PageQueryDto {
  @ApiPropertyOptional({
    enum: ['date', 'click'],
    description: 'date: newest first (default); click: most clicks first (ties newest first)',
  })
  @IsOptional()
  @IsIn(['date', 'click'], { message: 'order must be date or click' })
  order?: 'date' | 'click';

  @ApiPropertyOptional({
    description: 'Keyword searched in the target URL, title and alias (case-insensitive)',
    maxLength: 255,
  })
  @IsOptional()
  @IsString()
  @MaxLength(255)
  q?: string;

  @ApiPropertyOptional({ description: 'Exact alias', maxLength: 64 })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  short?: string;
}
