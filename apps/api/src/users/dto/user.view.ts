import { ApiProperty } from '@nestjs/swagger';

/** The documented User of the admin routes (OpenAPI model). */
export class UserResponse {
  @ApiProperty() id: number;
  @ApiProperty() email: string;
  @ApiProperty() username: string;
  @ApiProperty({ description: 'Gravatar URL of the e-mail' }) avatar: string;
  @ApiProperty({ enum: ['free', 'pro'], description: '`pro` for an active paid plan, else `free`' })
  status: string;
  @ApiProperty() planid: number;
  @ApiProperty({
    type: String,
    nullable: true,
    example: '2030-01-31 00:00:00',
    description: 'Membership expiry (UTC); null = never, or lapsed',
  })
  expires: string | null;
  @ApiProperty({ example: '2024-11-21 10:00:00' }) registered: string;
  @ApiProperty({
    type: 'string',
    nullable: true,
    description:
      "The user's API key (a secret); null when its stored copy was sealed under another APP_SECRET (the key still works; POST /api/user/:id/key/rotate issues a readable one)",
  })
  apikey: string | null;
}
