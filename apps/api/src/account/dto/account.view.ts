import { ApiProperty } from '@nestjs/swagger';

/** The documented Account of `GET /api/account` (OpenAPI model). */
export class AccountResponse {
  @ApiProperty({ type: 'integer' }) id: number;
  @ApiProperty() email: string;
  @ApiProperty() username: string;
  @ApiProperty({ description: 'Gravatar URL of the e-mail' }) avatar: string;
  @ApiProperty({ enum: ['free', 'pro'], description: '`pro` for an active paid plan, else `free`' })
  status: string;
  @ApiProperty({
    type: String,
    nullable: true,
    example: '2030-01-31 00:00:00',
    description: 'Membership expiry (UTC); null = never, or lapsed',
  })
  expires: string | null;
  @ApiProperty({ example: '2024-11-21 10:00:00' }) registered: string;
}
