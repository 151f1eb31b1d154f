import { ApiProperty } from '@nestjs/swagger';

import { formatDateTime } from '@app/common';
import { Pixel, PIXEL_TYPES, PixelType } from '@app/database';

/** The documented Pixel. */
export class PixelView {
  @ApiProperty({ example: 1 })
  id: number;

  @ApiProperty({ enum: PIXEL_TYPES })
  type: PixelType;

  @ApiProperty({ example: 'Shop pixel' })
  name: string;

  @ApiProperty({ example: 'AW-123456789' })
  tag: string;

  @ApiProperty({ example: '2024-11-21 10:00:00', description: 'Creation date-time (UTC)' })
  date: string;
}

/** The view of a row. */
export function pixelView(p: Pixel): PixelView {
  return {
    id: p.id,
    type: p.type,
    name: p.name,
    tag: p.tag,
    date: formatDateTime(p.createdAt) as string,
  };
}
