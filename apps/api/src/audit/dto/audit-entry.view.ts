import { ApiProperty } from '@nestjs/swagger';

/** Who made a change. */
export class AuditActorView {
  @ApiProperty({
    type: 'integer',
    nullable: true,
    example: 3,
    description: "The actor's user id (null once that account is deleted)",
  })
  id: number | null;

  @ApiProperty({ example: 'colleague@example.com', description: "The actor's e-mail at the time" })
  email: string;
}

/** What a change was made to. */
export class AuditResourceView {
  @ApiProperty({
    example: 'link',
    description:
      'link, qr, bio, overlay, splash, campaign, channel, pixel, domain, webhook, import, account, member, key; ' +
      "an admin's platform changes: user, blocklist",
  })
  type: string;

  @ApiProperty({
    oneOf: [{ type: 'integer' }, { type: 'string' }],
    nullable: true,
    example: 42,
    description: "The resource's id (an integer for every resource the API numbers)",
  })
  id: number | string | null;
}

/** One entry of the audit log (`GET /api/audit`). */
export class AuditEntryView {
  @ApiProperty({ example: 1201 })
  id: number;

  @ApiProperty({ example: '2026-11-21 10:00:00', description: 'When the change committed (UTC)' })
  date: string;

  @ApiProperty({ type: AuditActorView })
  actor: AuditActorView;

  @ApiProperty({
    type: 'integer',
    nullable: true,
    example: null,
    description: 'The named key used (GET /api/keys), or null: the personal key or a session',
  })
  key: number | null;

  @ApiProperty({
    example: 'link.update',
    description:
      '`<resource>.<verb>`: create, update, delete, and assign, verify, disable, enable, rotate_key, subscribe where they apply',
  })
  action: string;

  @ApiProperty({ type: AuditResourceView })
  resource: AuditResourceView;

  @ApiProperty({
    type: [String],
    example: ['title', 'url'],
    description: 'The names of the fields the change set, sorted; never their values',
  })
  changes: string[];
}
