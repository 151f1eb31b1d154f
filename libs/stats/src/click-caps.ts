import { Injectable, Logger } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { LRUCache } from 'lru-cache';
import { Repository } from 'typeorm';

import { PlanService } from '@app/common';
import { User } from '@app/database';

/** How long an owner's cap is remembered (a plan change is seen within this). */
const CAP_CACHE_MS = 60_000;

/**
 * The monthly `clicks` cap of link owners, as PlanService decides it (the effective plan: a lapsed
 * membership counts as the free plan; admins have none), remembered for a minute so that the
 * visit recorder asks Postgres about an owner at most once a minute.
 */
@Injectable()
export class ClickCaps {
  private readonly logger = new Logger(ClickCaps.name);
  private readonly caps = new LRUCache<number, number>({ max: 50_000, ttl: CAP_CACHE_MS });

  constructor(
    @InjectRepository(User) private readonly users: Repository<User>,
    private readonly plans: PlanService,
  ) {}

  /** The remembered cap (0 = none), or undefined when not known yet. */
  peek(userId: number): number | undefined {
    return this.caps.get(userId);
  }

  /** The owner's cap (0 = none). When it cannot be read, 0 (the visit is counted) and not remembered. */
  async of(userId: number): Promise<number> {
    const known = this.caps.get(userId);
    if (known !== undefined) return known;
    try {
      const user = await this.users.findOne({ where: { id: userId }, relations: { plan: true } });
      const cap = user ? await this.plans.clicksCap(user) : 0;
      this.caps.set(userId, cap);
      return cap;
    } catch (err) {
      this.logger.warn(`clicks cap unknown, counting: ${(err as Error).message}`);
      return 0;
    }
  }
}
