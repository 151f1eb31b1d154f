import { Injectable, Logger } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';

import { MemoMap, PlanService } from '@app/common';
import { User } from '@app/database';

/** How long an owner's cap is fresh (a plan change is seen within this, plus one read). */
export const CAP_CACHE_MS = 60_000;

interface KnownCap {
  cap: number;
  /** when it was read (ms) */
  at: number;
}

/**
 * The monthly `clicks` cap of link owners, as PlanService decides it (the effective plan: a lapsed
 * membership counts as the free plan; admins have none), remembered so that the visit recorder
 * asks Postgres about an owner at most once a minute. A cap older than a minute is still answered
 * while one read refreshes it in the background: at thousands of visits a second, letting it
 * expire sent every visit of the next milliseconds to Postgres on its own (tens of milliseconds
 * of stalled redirects once a minute). Reads of one owner are shared while in flight.
 */
@Injectable()
export class ClickCaps {
  private readonly logger = new Logger(ClickCaps.name);
  private readonly caps = new MemoMap<number, KnownCap>(50_000);
  private readonly reading = new Map<number, Promise<number>>();
  /** the clock (tests move it) */
  now: () => number = Date.now;

  constructor(
    @InjectRepository(User) private readonly users: Repository<User>,
    private readonly plans: PlanService,
  ) {}

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

  /** Reads the owner's cap from Postgres once, however many ask meanwhile. */
  private read(userId: number): Promise<number> {
    let pending = this.reading.get(userId);
    if (!pending) {
      pending = this.load(userId).finally(() => this.reading.delete(userId));
      this.reading.set(userId, pending);
    }
    return pending;
  }

  private async load(userId: number): Promise<number> {
    try {
      const user = await this.users.findOne({ where: { id: userId }, relations: { plan: true } });
      const cap = user ? await this.plans.clicksCap(user) : 0;
      this.caps.set(userId, { cap, at: this.now() });
      return cap;
    } catch (err) {
      this.logger.warn(`clicks cap unknown, counting: ${(err as Error).message}`);
      return 0;
    }
  }
}
