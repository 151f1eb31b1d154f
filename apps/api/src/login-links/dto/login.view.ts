import { ApiProperty } from '@nestjs/swagger';

class LoggedInUser {
  @ApiProperty() id: number;
  @ApiProperty() email: string;
  @ApiProperty() username: string;
  @ApiProperty({
    type: 'string',
    nullable: true,
    description:
      "The user's API key (a secret); null when its stored copy was sealed under another APP_SECRET (the key still works; an admin can rotate it)",
  })
  apikey: string | null;
}

/** `GET /auth/login/:token` success fields besides `error` (OpenAPI model). */
export class LoginResponse {
  @ApiProperty() message: string;
  @ApiProperty({ type: () => LoggedInUser }) data: LoggedInUser;
}
