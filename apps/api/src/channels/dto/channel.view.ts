import { ApiProperty } from '@nestjs/swagger';

import { Channel } from '@app/database';

/** The documented Channel (also the create answer, with `error: 0`). */
export class ChannelView {
  @ApiProperty({ example: 1 })
  id: number;

  @ApiProperty({ example: 'Newsletter' })
  name: string;

  @ApiProperty({ example: '' })
  description: string;

  @ApiProperty({ example: '#1e90ff', description: 'HEX #RRGGBB' })
  color: string;

  @ApiProperty({ example: false })
  starred: boolean;
}

/** The view of a row. */
export function channelView(c: Channel): ChannelView {
  return {
    id: c.id,
    name: c.name,
    description: c.description,
    color: c.color,
    starred: c.starred,
  };
}
