import { ApiProperty } from '@nestjs/swagger';

import { ChannelItemType } from '@app/database';

/** The documented Channel item. */
export class ChannelItemView {
  @ApiProperty({ enum: ['links', 'bio', 'qr'] })
  type: ChannelItemType;

  @ApiProperty({
    example: 12,
    description: 'Id of the item within its type (link, bio page or QR code id)',
  })
  id: number;

  @ApiProperty({
    example: 'My link',
    description: 'Link or bio page title (its alias when untitled); QR code name',
  })
  title: string;

  @ApiProperty({
    example: 'https://www.example.com/page',
    description:
      'links: the target URL; qr: <PUBLIC_URL>/q/<code>.png; bio: the page URL (its short URL)',
  })
  preview: string;

  @ApiProperty({
    example: 'https://short.example/abc',
    description:
      "Short URL: <PUBLIC_URL or the link's branded domain>/<alias>; qr: <PUBLIC_URL>/q/<code>",
  })
  link: string;

  @ApiProperty({ example: '2024-11-21', description: 'Assignment date, YYYY-MM-DD (UTC)' })
  date: string;
}
