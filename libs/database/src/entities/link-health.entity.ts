import { Column, Entity, PrimaryColumn } from 'typeorm';

/** What a target is, as its latest probes found it. */
export type HealthStatus = 'unknown' | 'ok' | 'broken';

/** One probe of a link's target, as `link_health.history` keeps it (newest first, at most 20). */
export interface HealthProbe {
  /** When the probe ended: `YYYY-MM-DD HH:MM:SS` (UTC). */
  date: string;
  /** The final answer's HTTP status (after redirects), or null when there was none. */
  httpstatus: number | null;
  /** Why the probe failed, or null when it was good. */
  error: string | null;
  /** How long the probe took, in milliseconds (redirects included). */
  ms: number;
}

/**
 * The health of a link's target (docs/link-health.md). Written only by the worker's
 * LinkHealthStore; the api reads it (`GET /api/url/:id/health`, and the read model's fallback).
 */
@Entity('link_health')
export class LinkHealth {
  @PrimaryColumn({ name: 'link_id', type: 'int' })
  linkId: number;

  /** The target URL this state is about: a link whose `url` changed starts over. */
  @Column({ type: 'text' })
  url: string;

  @Column({ type: 'varchar', length: 8, default: 'unknown' })
  status: HealthStatus;

  /** Failed probes in a row. */
  @Column({ type: 'int', default: 0 })
  fails: number;

  /** Good probes in a row. */
  @Column({ type: 'int', default: 0 })
  oks: number;

  /** When `status` last changed. */
  @Column({ type: 'timestamptz', nullable: true })
  since: Date | null;

  @Column({ name: 'checked_at', type: 'timestamptz', nullable: true })
  checkedAt: Date | null;

  @Column({ name: 'http_status', type: 'int', nullable: true })
  httpStatus: number | null;

  @Column({ type: 'varchar', length: 300, nullable: true })
  error: string | null;

  @Column({ type: 'jsonb', default: () => "'[]'" })
  history: HealthProbe[];

  /** The registrable domain the target's redirects ended on at the first good probe. */
  @Column({ type: 'varchar', length: 255, nullable: true })
  domain: string | null;

  /** The other registrable domain a `link.drifted` was last sent for (null: none since). */
  @Column({ name: 'drifted_to', type: 'varchar', length: 255, nullable: true })
  driftedTo: string | null;

  /** When the link is due (a claimed row: when its lease lapses). */
  @Column({ name: 'next_at', type: 'timestamptz' })
  nextAt: Date;

  /** The claim of the worker probing it now (null when none). */
  @Column({ type: 'int', nullable: true })
  lease: number | null;
}
