import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

import { EFFECTIVE_LIMITS_SQL, MemoMap } from '@app/common';
import { pgArray, prepared, queryPrepared } from '@app/database';

/** How long an owner's cap is fresh (a plan change is seen within this, plus one read). */
export const CAP_CACHE_MS = 60_000;

interface KnownCap {
  cap: number;
  /** when it was read (ms) */
  at: number;
}

/** The owners' caps, prepared (parsed and planned once per connection, not once per read). */
const READ_CAPS = prepared(
  'click_caps',
  `SELECT e.user_id AS id, e.limits->>'clicks' AS clicks
     FROM (${EFFECTIVE_LIMITS_SQL}) e WHERE e.user_id = ANY($1::int[])`,
);

/** Reads the `clicks` caps of owners: one row (id, clicks) per owner that has a cap to apply. */
export type CapReader = (userIds: number[]) => Promise<Array<{ id: number; clicks: unknown }>>;

/**
 * The monthly `clicks` cap of link owners, by PlanService's rule (the effective plan: a lapsed
 * membership counts as the free plan; admins have none; EFFECTIVE_LIMITS_SQL), remembered so
 * that the visit recorder asks Postgres about an owner at most once a minute. A cap older than a
 * minute is still answered while one read refreshes it in the background: at thousands of visits
 * a second, letting it expire sent every visit of the next milliseconds to Postgres on its own
 * (tens of milliseconds of stalled redirects once a minute). Reads of one owner are shared while
 * in flight, and every owner asked for in a turn of the event loop (the owners of many visits,
 * `ofMany`; an unknown owner's `of`; a stale cap's refresh) is read in one statement at its end.
 * Traffic over many owners (a long tail of links) costs one query a batch, not one an owner, also
 * a minute later, when their caps turn stale together.
 */
@Injectable()
export class ClickCaps {
  private readonly logger = new Logger(ClickCaps.name);
  private readonly caps = new MemoMap<number, KnownCap>(50_000);
  private readonly reading = new Map<number, Promise<number>>();
  /** Owners asked for in this turn: read together in one statement at its end (`read`). */
  private queued: number[] = [];
  private queuedRead?: Promise<Map<number, number> | null>;
  /** the clock (tests move it) */
  now: () => number = Date.now;
  /** the reads of Postgres (tests replace it) */
  readCaps: CapReader;

  constructor(@InjectDataSource() db: DataSource) {
    this.readCaps = (ids) =>
      queryPrepared<{ id: number; clicks: unknown }>(db, READ_CAPS, [pgArray(ids)]);
  }

  /** The remembered cap (0 = none), or undefined when not known yet. */
  peek(userId: number): number | undefined {
    const known = this.caps.get(userId);
    if (known === undefined) return undefined;
    if (this.now() - known.at >= CAP_CACHE_MS) void this.read(userId);
    return known.cap;
  }

  /** The owner's cap (0 = none). When it cannot be read, 0 (the visit is counted) and not remembered. */
  async of(userId: number): Promise<number> {
    return this.peek(userId) ?? this.read(userId);
  }

  /** The caps of many owners (in `userIds`' order), those not known yet read in one statement. */
  ofMany(userIds: number[]): Promise<number[]> {
    return Promise.all(userIds.map((id) => this.of(id)));
  }

  /**
   * Reads the owner's cap from Postgres once, however many ask meanwhile: with the other owners
   * asked for in this turn, in one statement at its end.
   */
  private read(userId: number): Promise<number> {
    const reading = this.reading.get(userId);
    if (reading) return reading;
    if (!this.queuedRead)
      this.queuedRead = new Promise((resolve) =>
        setImmediate(() => resolve(this.readAll(this.takeQueued()))),
      );
    this.queued.push(userId);
    return this.share(userId, this.queuedRead);
  }

  /** The owners queued this turn, the queue emptied for the next. */
  private takeQueued(): number[] {
    const ids = this.queued;
    this.queued = [];
    this.queuedRead = undefined;
    return ids;
  }

  /** The owner's part of the turn's read: shared (`reading`) until the read ends. */
  private share(userId: number, all: Promise<Map<number, number> | null>): Promise<number> {
    const pending = all
      .then((caps) => caps?.get(userId) ?? 0)
      .finally(() => this.reading.delete(userId));
    this.reading.set(userId, pending);
    return pending;
  }

  /** One statement for `userIds`' caps, remembered (null: the read failed, nothing remembered). */
  private readAll(userIds: number[]): Promise<Map<number, number> | null> {
    return this.readCaps(userIds).then(
      (rows) => {
        const at = this.now();
        const caps = new Map(rows.map((r) => [Number(r.id), Number(r.clicks) || 0]));
        for (const id of userIds) this.caps.set(id, { cap: caps.get(id) ?? 0, at });
        return caps;
      },
      (err: Error) => {
        this.logger.warn(`clicks cap unknown, counting: ${err.message}`);
        return null;
      },
    );
  }
}
