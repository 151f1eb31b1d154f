import { ApiProperty } from '@nestjs/swagger';

import { ThreatFeedSource, ThreatFeedState } from '@app/links';

const FORMATS = ['urlhaus-csv', 'urlhaus-text', 'phishtank-csv', 'phishtank-json', 'openphish'];

/** A threat feed of THREAT_FEEDS and its last loads (GET /api/admin/feeds). */
export class ThreatFeedView {
  @ApiProperty({
    example: 'urlhaus',
    description: 'What refusals name: "flagged as <type> by <name>"',
  })
  name: string;

  @ApiProperty({
    example: 'https://urlhaus.abuse.ch/…',
    description:
      'The file path, or the URL reduced to its origin (a feed URL often holds an access key)',
  })
  source: string;

  @ApiProperty({
    // null among the values too: with `nullable`, OpenAPI 3.0 still holds a null to the enum
    enum: [...FORMATS, null],
    nullable: true,
    description: 'Detected from the content at the last successful load (null: none yet)',
  })
  format: string | null;

  @ApiProperty({ type: 'integer', description: 'Entries (hosts and URLs) of the set in use' })
  entries: number;

  @ApiProperty({ type: 'integer', description: 'Lines of the last successful load not understood' })
  skipped: number;

  @ApiProperty({
    type: 'string',
    format: 'date-time',
    nullable: true,
    description: 'When the set in use was loaded (null: never; nothing is flagged by this feed)',
  })
  loadedAt: string | null;

  @ApiProperty({ type: 'integer', nullable: true, description: 'Seconds since loadedAt' })
  ageSeconds: number | null;

  @ApiProperty({ type: 'string', format: 'date-time', nullable: true })
  attemptedAt: string | null;

  @ApiProperty({
    type: 'string',
    nullable: true,
    description: 'Why the last load failed (the previous set stays in use); null when it succeeded',
  })
  error: string | null;
}

/** What may be shown of a feed's source: a file path, or a URL's origin only. */
export function shownSource(source: string): string {
  if (!/^https?:\/\//i.test(source)) return source;
  try {
    return `${new URL(source).origin}/…`;
  } catch {
    return 'url';
  }
}

export function threatFeedView(
  feed: ThreatFeedSource & ThreatFeedState,
  now = Date.now(),
): ThreatFeedView {
  return {
    name: feed.name,
    source: shownSource(feed.source),
    format: feed.format,
    entries: feed.entries,
    skipped: feed.skipped,
    loadedAt: feed.loadedAt,
    ageSeconds: feed.loadedAt
      ? Math.max(0, Math.round((now - Date.parse(feed.loadedAt)) / 1000))
      : null,
    attemptedAt: feed.attemptedAt,
    error: feed.error,
  };
}
