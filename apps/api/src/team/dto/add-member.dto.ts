import { ApiProperty } from '@nestjs/swagger';
import { IsEmail, IsIn, IsString, MaxLength } from 'class-validator';

import { MEMBER_ROLES, MemberRole } from '@app/database';

export const ROLE_MESSAGE = `role must be one of ${MEMBER_ROLES.join(', ')}`;

export class AddMemberDto {
  @ApiProperty({
    example: 'colleague@example.com',
    maxLength: 254,
    description: "An existing user's e-mail (any case); 404 when no user has it",
  })
  @IsString()
  @MaxLength(254)
  @IsEmail({}, { message: 'email must be a valid e-mail address' })
  email: string;

  @ApiProperty({
    enum: MEMBER_ROLES,
    example: 'viewer',
    description:
      '`viewer`: every GET; `editor`: also links, QR codes, bio pages, campaigns, channels, pixels, overlays, splash pages and imports; `admin`: also domains, webhooks, members, keys and the audit log',
  })
  @IsString()
  @IsIn(MEMBER_ROLES, { message: ROLE_MESSAGE })
  role: MemberRole;
}
