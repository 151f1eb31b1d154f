import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';

import { addMonths, NotFoundError, PrincipalCache } from '@app/common';
import { FeatureCount, FeatureFlag, Plan, PlanLimits, PlanType, User } from '@app/database';

import { parseExpiration } from '../users/expiration';
import { SubscribePlanDto } from './dto/subscribe-plan.dto';

/** The documented Plan. */
export interface PlanView {
  id: number;
  name: string;
  free: boolean;
  prices: { monthly: number | null; yearly: number | null; lifetime: number | null } | null;
  limits: PlanLimits;
}

const FLAGS = [
  'custom',
  'multiple',
  'alias',
  'device',
  'geo',
  'bundle',
  'parameters',
  'export',
  'api',
] as const;
const COUNTED = ['team', 'splash', 'overlay', 'pixels', 'domain'] as const;

const toInt = (v: unknown): number => {
  const n = Number(v);
  return Number.isInteger(n) && n >= 0 ? n : 0;
};

/**
 * The full documented `limits` object from the stored jsonb, in the documented order. A key an
 * operator left out reads as the plan checks read it: a missing flag is disabled, a missing or
 * malformed number is 0 (unlimited).
 */
export function planLimits(raw: Partial<Record<keyof PlanLimits, unknown>> | null): PlanLimits {
  const src = (raw ?? {}) as Record<string, { enabled?: unknown; count?: unknown } | undefined>;
  const enabled = (f: string): '0' | '1' => (src[f]?.enabled === '1' ? '1' : '0');
  const flags = Object.fromEntries(
    FLAGS.map((f) => [f, { enabled: enabled(f) } satisfies FeatureFlag]),
  );
  const counted = Object.fromEntries(
    COUNTED.map((f) => [
      f,
      { enabled: enabled(f), count: String(toInt(src[f]?.count)) } satisfies FeatureCount,
    ]),
  );
  return {
    links: toInt(raw?.links),
    clicks: toInt(raw?.clicks),
    retention: toInt(raw?.retention),
    ...flags,
    ...counted,
  } as PlanLimits;
}

/** The expiry a subscription gets when the admin sends no `expiration`. */
export function defaultExpiry(type: PlanType, now = new Date()): Date | null {
  if (type === 'monthly') return addMonths(now, 1);
  if (type === 'yearly') return addMonths(now, 12);
  return null;
}

@Injectable()
export class PlansService {
  constructor(
    @InjectRepository(Plan) private readonly plans: Repository<Plan>,
    @InjectRepository(User) private readonly users: Repository<User>,
    private readonly owners: PrincipalCache,
  ) {}

  static view(plan: Plan): PlanView {
    return {
      id: plan.id,
      name: plan.name,
      free: plan.free,
      prices: plan.free
        ? null
        : { monthly: plan.priceMonthly, yearly: plan.priceYearly, lifetime: plan.priceLifetime },
      limits: planLimits(plan.limits),
    };
  }

  /** Every plan, newest first (the list is short and not paginated). */
  async list(): Promise<PlanView[]> {
    const plans = await this.plans.find({ order: { id: 'DESC' } });
    return plans.map((p) => PlansService.view(p));
  }

  /**
   * Puts a user on a plan: an explicit `expiration` wins, else it follows `type`
   * (monthly +1 month, yearly +12 months, lifetime never). A free plan never expires.
   */
  async subscribe(planId: number, userId: number, dto: SubscribePlanDto): Promise<void> {
    const expiration = dto.expiration === undefined ? undefined : parseExpiration(dto.expiration);
    const plan = await this.plans.findOneBy({ id: planId });
    if (!plan) throw new NotFoundError('Plan');
    const changes: Pick<User, 'planId' | 'planType' | 'expires'> = plan.free
      ? { planId: plan.id, planType: null, expires: null }
      : { planId: plan.id, planType: dto.type, expires: expiration ?? defaultExpiry(dto.type) };
    const result = await this.users.update({ id: userId }, changes);
    if (!result.affected) throw new NotFoundError('User');
    await this.owners.forgetUser(userId);
  }
}
