import { ApiProperty } from '@nestjs/swagger';

/** The answer of a key rotation (`/api/account/key/rotate`, `/api/user/:id/key/rotate`). */
export class RotatedKeyView {
  @ApiProperty({ type: 'integer', example: 1, description: 'The user whose key changed' })
  id: number;

  @ApiProperty({
    description: 'The new API key (a secret, shown once); the old one no longer works',
  })
  apikey: string;
}
