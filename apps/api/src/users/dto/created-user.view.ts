import { ApiProperty } from '@nestjs/swagger';

class CreatedUser {
  @ApiProperty() id: number;
  @ApiProperty() email: string;
  @ApiProperty() username: string;
}

/** `POST /api/user/add` success fields besides `error` (OpenAPI model). */
export class CreatedUserResponse {
  @ApiProperty() message: string;
  @ApiProperty({ type: () => CreatedUser }) data: CreatedUser;
}
