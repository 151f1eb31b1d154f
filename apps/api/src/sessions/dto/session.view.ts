import { ApiProperty } from '@nestjs/swagger';

/** The signed-in user of a session and the session's CSRF token (OpenAPI model). */
export class SessionView {
  @ApiProperty() id: number;
  @ApiProperty() email: string;
  @ApiProperty() username: string;
  @ApiProperty({ description: 'Whether the user is an admin (the dashboard shows its admin area)' })
  admin: boolean;
  @ApiProperty({
    description:
      'The CSRF token of the session: send it as `X-CSRF-Token` with every /api request but GET, HEAD and OPTIONS',
  })
  csrf: string;
}
