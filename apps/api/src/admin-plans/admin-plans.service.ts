import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';

import {
  addMonths,
  AuditLog,
  fieldsOf,
  NotFoundError,
  Principal,
  PrincipalCache,
} from '@app/common';
import { Plan, PlanType, User } from '@app/database';

import { parseExpiration } from '../users/expiration';
import { PlanView, planView } from './dto/plan.view';
import { SubscribePlanDto } from './dto/subscribe-plan.dto';

/** The expiry a subscription gets when the admin sends no `expiration`. */
export function defaultExpiry(type: PlanType, now = new Date()): Date | null {
  if (type === 'monthly') return addMonths(now, 1);
  if (type === 'yearly') return addMonths(now, 12);
  return null;
}

/**
 * The admin's plan routes: the plan list and subscribing a user to a plan. The plan checks every
 * feature makes (effective plan, flags, counted limits) are PlanService's (libs/common).
 */
@Injectable()
export class AdminPlansService {
  constructor(
    @InjectRepository(Plan) private readonly plans: Repository<Plan>,
    @InjectRepository(User) private readonly users: Repository<User>,
    private readonly owners: PrincipalCache,
    private readonly audit: AuditLog,
  ) {}

  /** Every plan, newest first (the list is short and not paginated). */
  async list(): Promise<PlanView[]> {
    const plans = await this.plans.find({ order: { id: 'DESC' } });
    return plans.map((p) => planView(p));
  }

  /**
   * Puts a user on a plan: an explicit `expiration` wins, else it follows `type`
   * (monthly +1 month, yearly +12 months, lifetime never). A free plan never expires. Audited
   * as `user.subscribe` of the user (fields `planid` and the body's) in the admin's workspace.
   */
  async subscribe(
    auth: Principal,
    planId: number,
    userId: number,
    dto: SubscribePlanDto,
  ): Promise<void> {
    const expiration = dto.expiration === undefined ? undefined : parseExpiration(dto.expiration);
    const plan = await this.plans.findOneBy({ id: planId });
    if (!plan) throw new NotFoundError('Plan');
    const changes: Pick<User, 'planId' | 'planType' | 'expires'> = plan.free
      ? { planId: plan.id, planType: null, expires: null }
      : { planId: plan.id, planType: dto.type, expires: expiration ?? defaultExpiry(dto.type) };
    const audited = {
      action: 'user.subscribe',
      resource: { type: 'user', id: userId },
      changes: ['planid', ...fieldsOf(dto)],
    };
    await this.audit.change(auth, audited, async (em) => {
      const result = await em.update(User, { id: userId }, changes);
      if (!result.affected) throw new NotFoundError('User');
    });
    await this.owners.forgetUser(userId);
  }
}
