import { ApiProperty } from '@nestjs/swagger';

import { formatDateTime } from '@app/common';
import { HealthProbe, HealthStatus } from '@app/database';

/** One probe of the target, newest first in `history`. */
export class HealthProbeView {
  @ApiProperty({ example: '2030-01-01 12:00:00', description: 'When the probe ended (UTC)' })
  date: string;

  @ApiProperty({
    type: 'integer',
    nullable: true,
    example: 200,
    description: "The final answer's HTTP status (after redirects); null when there was none",
  })
  httpstatus: number | null;

  @ApiProperty({
    type: String,
    nullable: true,
    description:
      'Why the probe failed (the answer, a timeout, a refused address …); null when good',
  })
  error: string | null;

  @ApiProperty({ type: 'integer', example: 84, description: 'How long the probe took (ms)' })
  ms: number;
}

/**
 * A link's health: `{status, checked, httpstatus, error, since, history}` (CONTRACT's fields), the
 * `data` of `GET /api/url/:id/health`, as statistics answers are: the envelope's own `error` stays 0.
 */
export class LinkHealthData {
  @ApiProperty({
    enum: ['ok', 'broken', 'unknown'],
    description:
      'ok: the target answers; broken: HEALTH_FAIL_THRESHOLD probes in a row failed (the link serves its fallbackurl, if it has one, until 2 good probes in a row); unknown: not probed yet since the link was created or its url changed (links are probed once visited in the last 30 days)',
  })
  status: HealthStatus;

  @ApiProperty({
    type: String,
    nullable: true,
    example: '2030-01-01 12:00:00',
    description: 'When the current url was last probed (UTC); null when never',
  })
  checked: string | null;

  @ApiProperty({
    type: 'integer',
    nullable: true,
    example: 200,
    description: "The last probe's final HTTP status; null when it got no answer or there was none",
  })
  httpstatus: number | null;

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Why the last probe failed; null when it was good or there was none',
  })
  error: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    example: '2030-01-01 12:00:00',
    description: 'Since when the status holds (UTC); null while unknown',
  })
  since: string | null;

  @ApiProperty({
    type: [HealthProbeView],
    maxItems: 20,
    description: 'The last 20 probes of the link, newest first (across changes of its url)',
  })
  history: HealthProbeView[];
}

/** `GET /api/url/:id/health`: `{error: 0, data: {status, checked, httpstatus, error, since, history}}`. */
export class LinkHealthView {
  @ApiProperty({ type: LinkHealthData })
  data: LinkHealthData;
}

/** A link's row and its `link_health` row (or nulls), as LinkHealthReader reads them. */
export interface LinkHealthRow {
  url: string;
  state_url: string | null;
  status: HealthStatus | null;
  checked_at: Date | null;
  http_status: number | null;
  error: string | null;
  since: Date | null;
  history: HealthProbe[] | null;
}

/** The view of a link's health: a state about another (earlier) url is unknown. */
export function linkHealthData(row: LinkHealthRow): LinkHealthData {
  const history = (row.history ?? []).map((p) => ({
    date: p.date,
    httpstatus: p.httpstatus,
    error: p.error,
    ms: p.ms,
  }));
  if (row.state_url !== row.url || !row.status)
    return {
      status: 'unknown',
      checked: null,
      httpstatus: null,
      error: null,
      since: null,
      history,
    };
  return {
    status: row.status,
    checked: formatDateTime(row.checked_at),
    httpstatus: row.http_status,
    error: row.error,
    since: formatDateTime(row.since),
    history,
  };
}
