import { ApiProperty } from '@nestjs/swagger';

import { formatDateTime } from '@app/common';
import { Overlay, OverlayType } from '@app/database';

/** The documented CTA overlay list entry. */
export class OverlayView {
  @ApiProperty({ example: 1 })
  id: number;

  @ApiProperty({ enum: ['message', 'contact'] })
  type: OverlayType;

  @ApiProperty({ example: 'Newsletter sign-up' })
  name: string;

  @ApiProperty({ example: '2024-11-21 10:00:00', description: 'Creation date-time (UTC)' })
  date: string;
}

/** The view of a row. */
export function overlayView(o: Overlay): OverlayView {
  return { id: o.id, type: o.type, name: o.name, date: formatDateTime(o.createdAt) as string };
}
