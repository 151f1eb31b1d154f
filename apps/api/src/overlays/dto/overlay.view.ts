import { ApiProperty } from '@nestjs/swagger';

import { OverlayType } from '@app/database';

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
