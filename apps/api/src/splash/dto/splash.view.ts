import { ApiProperty } from '@nestjs/swagger';

import { formatDateTime } from '@app/common';
import { SplashPage } from '@app/database';

/** The documented custom splash page list entry. */
export class SplashView {
  @ApiProperty({ example: 1 })
  id: number;

  @ApiProperty({ example: 'Holiday notice' })
  name: string;

  @ApiProperty({ example: '2024-11-21 10:00:00', description: 'Creation date-time (UTC)' })
  date: string;
}

/** The view of a row. */
export function splashView(s: SplashPage): SplashView {
  return { id: s.id, name: s.name, date: formatDateTime(s.createdAt) as string };
}
