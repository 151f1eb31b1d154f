import { ApiProperty } from '@nestjs/swagger';

class LoggedInUser {
  @ApiProperty() id: number;
  @ApiProperty() email: string;
  @ApiProperty() username: string;
  @ApiProperty({ description: "The user's API key (a secret)" }) apikey: string;
}

/** `GET /auth/login/:token` success fields besides `error` (OpenAPI model). */
export class LoginResponse {
  @ApiProperty() message: string;
  @ApiProperty({ type: () => LoggedInUser }) data: LoggedInUser;
}
