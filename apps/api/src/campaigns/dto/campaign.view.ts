import { ApiProperty } from '@nestjs/swagger';

/** A campaign list entry. */
export class CampaignView {
  @ApiProperty({ example: 1 })
  id: number;

  @ApiProperty({ example: 'Spring sale' })
  name: string;

  @ApiProperty({ example: false })
  public: boolean;

  @ApiProperty({
    oneOf: [
      { type: 'string', example: 'https://short.example/r/spring-sale' },
      { type: 'boolean', enum: [false] },
    ],
    description: '<PUBLIC_URL>/r/<slug>, or false when the campaign has no slug',
  })
  rotator: string | false;

  @ApiProperty({
    example: 'https://short.example/u/spring-sale-1',
    description: '<PUBLIC_URL>/u/<slug or slugified name>-<id>',
  })
  list: string;
}
