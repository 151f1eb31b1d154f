import { ApiProperty } from '@nestjs/swagger';

/** `GET /api/user/login/:id` success fields besides `error` (OpenAPI model). */
export class LoginLinkResponse {
  @ApiProperty({
    example: 'http://localhost:3000/auth/login/<token>',
    description: 'One-time login link, valid 1 hour',
  })
  url: string;
}
