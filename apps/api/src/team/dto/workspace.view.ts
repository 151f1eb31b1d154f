import { ApiProperty } from '@nestjs/swagger';

import { Role } from '@app/common';

/** A workspace the caller may act in (`X-Workspace: <id>`). */
export class WorkspaceView {
  @ApiProperty({ example: 42, description: "The workspace's id: its owner's user id" })
  id: number;

  @ApiProperty({ example: 'jane.doe', description: "The owner's username (or e-mail)" })
  name: string;

  @ApiProperty({ enum: ['owner', 'admin', 'editor', 'viewer'], example: 'owner' })
  role: Role;
}
