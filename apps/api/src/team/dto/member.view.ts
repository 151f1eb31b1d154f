import { ApiProperty } from '@nestjs/swagger';

import { formatDateTime } from '@app/common';
import { MEMBER_ROLES, MemberRole, User, WorkspaceMember } from '@app/database';

/** The documented member of a workspace (also the `data` of `member.added` / `member.removed`). */
export class MemberView {
  @ApiProperty({ example: 3, description: 'The membership id (`/api/team/:id/…`)' })
  id: number;

  @ApiProperty({ example: 42, description: "The member's user id" })
  userid: number;

  @ApiProperty({ example: 'colleague@example.com' })
  email: string;

  @ApiProperty({ example: 'colleague' })
  username: string;

  @ApiProperty({ enum: MEMBER_ROLES, example: 'viewer' })
  role: MemberRole;

  @ApiProperty({ example: '2024-11-21 10:00:00', description: 'When the member was added (UTC)' })
  date: string;
}

/** The view of a membership and its user. */
export function memberView(m: WorkspaceMember, user: Pick<User, 'email' | 'username'>): MemberView {
  return {
    id: m.id,
    userid: m.userId,
    email: user.email,
    username: user.username,
    role: m.role,
    date: formatDateTime(m.createdAt) as string,
  };
}
