import { ApiProperty } from '@nestjs/swagger';

/** The documented custom splash page list entry. */
export class SplashView {
  @ApiProperty({ example: 1 })
  id: number;

  @ApiProperty({ example: 'Holiday notice' })
  name: string;

  @ApiProperty({ example: '2024-11-21 10:00:00', description: 'Creation date-time (UTC)' })
  date: string;
}
