import { Injectable, Logger, OnModuleDestroy, OnModuleInit, Optional } from '@nestjs/common';

import { RedisService } from '@app/redis';
import { VisitInput, VisitRecorder } from '@app/stats';

/** Visits held at most (about 0.5 KB each with their headers: some 50 MB at the cap). */
export const OUTAGE_VISITS_MAX = 100_000;
/** Visits handed to the recorder per turn of the event loop when Redis is back. */
const REPLAY_SLICE = 1000;
/**
 * How often held visits are offered to the recorder, and how long Redis must have been ready
 * first (the recorder writes on a connection of its own, which reconnects on its own schedule).
 */
const REPLAY_MS = 1000;
/** At most one warning about dropped visits per this many milliseconds. */
const WARN_MS = 60_000;

/** Visits held, and how many were dropped past the cap, as one process hands them to another. */
export interface HeldVisits {
  visits: VisitInput[];
  dropped: number;
}

/**
 * Visits made while Redis is unreachable (the recorder writes to Redis, so they would be lost):
 * held in memory, OUTAGE_VISITS_MAX at most (later ones are counted as dropped and logged), and
 * handed to VisitRecorder, the normal recording path, once Redis is back; the worker's fold then
 * puts them into Postgres like any other. Each keeps the time it was made (`at`), so it counts
 * on its own day and hour however late it is replayed.
 *
 * Without a recorder (the starting front of a process that started while Postgres was down,
 * apps/api/src/starting) every visit is held, whatever Redis says, and handed over (`handOver`)
 * to the full api's OutageVisits (`adopt`) once it is built.
 */
@Injectable()
export class OutageVisits implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(OutageVisits.name);
  private held: VisitInput[] = [];
  private dropped = 0;
  private warnedAt = 0;
  private replaying = false;
  private readyAt = 0;
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly redis: RedisService,
    @Optional() private readonly visits?: VisitRecorder,
  ) {}

  onModuleInit(): void {
    this.readyAt = Date.now();
    this.redis.client.on('ready', () => (this.readyAt = Date.now()));
    this.timer = setInterval(() => void this.replay(), REPLAY_MS);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
  }

  /** Whether visits are held now (Redis unreachable, or no recorder); one property read on the redirect path. */
  get holding(): boolean {
    return !this.redis.ready || !this.visits;
  }

  /** Visits held, waiting for Redis. */
  get size(): number {
    return this.held.length;
  }

  /** Holds `visit`, made now unless it says when (`at`). */
  keep(visit: VisitInput): void {
    if (this.held.length < OUTAGE_VISITS_MAX) {
      if (visit.at === undefined) visit.at = Date.now();
      this.held.push(visit);
      return;
    }
    this.drop(1);
  }

  /** Takes every held visit away (for the full api's OutageVisits: `adopt`). */
  handOver(): HeldVisits {
    const out = { visits: this.held, dropped: this.dropped };
    this.held = [];
    this.dropped = 0;
    return out;
  }

  /** Holds visits another OutageVisits held (`handOver`), within the same cap. */
  adopt(held: HeldVisits): void {
    const room = Math.max(0, OUTAGE_VISITS_MAX - this.held.length);
    for (const visit of held.visits.slice(0, room)) this.keep(visit);
    this.dropped += held.dropped;
    if (held.visits.length > room) this.drop(held.visits.length - room);
  }

  private drop(n: number): void {
    this.dropped += n;
    const now = Date.now();
    if (now - this.warnedAt >= WARN_MS) {
      this.warnedAt = now;
      this.logger.warn(
        `Redis unreachable: ${OUTAGE_VISITS_MAX} visits held, ${this.dropped} dropped so far`,
      );
    }
  }

  /** Hands the held visits to the recorder, a slice per turn, once Redis is ready. */
  async replay(): Promise<number> {
    const recorder = this.visits;
    if (!recorder || this.replaying || !this.held.length || !this.redis.ready) return 0;
    if (Date.now() - this.readyAt < REPLAY_MS) return 0;
    this.replaying = true;
    const batch = this.held;
    this.held = [];
    try {
      for (let at = 0; at < batch.length; at += REPLAY_SLICE) {
        if (at) await new Promise((resolve) => setImmediate(resolve));
        for (const visit of batch.slice(at, at + REPLAY_SLICE)) recorder.record(visit);
      }
      this.logger.log(
        `${batch.length} visits of the outage recorded${this.dropped ? ` (${this.dropped} were dropped past the cap)` : ''}`,
      );
      this.dropped = 0;
      return batch.length;
    } finally {
      this.replaying = false;
    }
  }
}
