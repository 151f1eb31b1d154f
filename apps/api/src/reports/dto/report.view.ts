import { ApiProperty } from '@nestjs/swagger';

/** The reported link, as an admin sees it. */
export class ReportedLinkView {
  @ApiProperty({ example: 42, description: 'The link id (`PUT /api/admin/url/:id/disable`)' })
  id: number;

  @ApiProperty({ example: 'abc123' })
  alias: string;

  @ApiProperty({ example: 'https://s.example/abc123' })
  shorturl: string;

  @ApiProperty({ example: 'https://target.example/login', description: 'The target' })
  url: string;

  @ApiProperty({ example: 7, description: "The owner's user id" })
  owner: number;

  @ApiProperty({ example: false, description: 'Taken down by an admin (answers 451)' })
  disabled: boolean;
}

/** One abuse report of the admin queue (`GET /api/admin/reports`). */
export class ReportView {
  @ApiProperty({ example: 12 })
  id: number;

  @ApiProperty({ example: '2026-11-28 21:00:00', description: 'When it was reported (UTC)' })
  date: string;

  @ApiProperty({ enum: ['phishing', 'malware', 'spam', 'illegal', 'other'] })
  reason: string;

  @ApiProperty({ example: 'Asks for my bank password' })
  details: string;

  @ApiProperty({
    type: String,
    nullable: true,
    example: 'reporter@example.com',
    description: "The reporter's e-mail if given (admins only)",
  })
  email: string | null;

  @ApiProperty({ enum: ['open', 'dismissed', 'disabled'] })
  status: string;

  @ApiProperty({
    type: String,
    nullable: true,
    example: null,
    description: 'When it was resolved (UTC)',
  })
  resolved: string | null;

  @ApiProperty({
    type: 'integer',
    nullable: true,
    example: null,
    description: 'The admin who resolved it',
  })
  resolvedBy: number | null;

  @ApiProperty({ type: ReportedLinkView })
  link: ReportedLinkView;

  @ApiProperty({ example: 3, description: 'Reports of this link, every status' })
  reports: number;

  @ApiProperty({ example: 2, description: 'Open reports of this link' })
  open: number;
}
