import { Injectable, Type } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { DataSource, DeepPartial, EntityManager, FindOptionsWhere, Repository } from 'typeorm';

import { CountedFeature, FlagFeature, Plan, User } from '@app/database';

import { ForbiddenError } from '../http/errors';
import { Principal } from './principal';

const FREE_PLAN_TTL_MS = 30_000;

/** A cap of the service itself (not of a plan) on what one user may own, e.g. 20 webhooks. */
export interface FixedLimit {
  /** what is counted, plural, as the 403 names it */
  what: string;
  max: number;
  /** whose items are counted, as the 403 names it (default `user`) */
  per?: 'user' | 'workspace';
}

/**
 * `PlanService.isMembershipActive` in SQL, over the aliases of a users row and its plan's row:
 * the plan is free, or its membership has no end, or ends later.
 */
export function activeMembershipSql(user: string, plan: string): string {
  return `(${plan}.free OR ${user}.expires IS NULL OR ${user}.expires > now())`;
}

/**
 * The rule of `PlanService.effectivePlan` in SQL, for statements over many users at once
 * (statistics retention): one row `(user_id, limits)` per user plans limit, with the limits of
 * the plan that applies. A paid membership whose `expires` has passed counts as the free plan
 * (lowest id with free = true, as `getFreePlan`); admins are never limited, so they have no row.
 * Use it as a subquery: `FROM (${EFFECTIVE_LIMITS_SQL}) e`.
 */
export const EFFECTIVE_LIMITS_SQL = `SELECT u.id AS user_id,
         CASE WHEN ${activeMembershipSql('u', 'p')} THEN p.limits
              ELSE (SELECT limits FROM plans WHERE free ORDER BY id LIMIT 1) END AS limits
    FROM users u JOIN plans p ON p.id = u.plan_id
   WHERE NOT u.is_admin`;

/** Plan resolution and the plan checks every feature module calls before it creates something. */
@Injectable()
export class PlanService {
  private freePlan?: { plan: Plan; at: number };

  constructor(
    @InjectRepository(Plan) private readonly plans: Repository<Plan>,
    @InjectDataSource() private readonly db: DataSource,
  ) {}

  /** The service's free plan (lowest id with free = true), cached briefly. */
  async getFreePlan(): Promise<Plan> {
    if (this.freePlan && Date.now() - this.freePlan.at < FREE_PLAN_TTL_MS)
      return this.freePlan.plan;
    const plan = await this.plans.findOne({ where: { free: true }, order: { id: 'ASC' } });
    if (!plan) throw new Error('No free plan is configured');
    this.freePlan = { plan, at: Date.now() };
    return plan;
  }

  /**
   * A paid membership whose `expires` has passed falls back to the free plan (the same rule in
   * SQL: activeMembershipSql, EFFECTIVE_LIMITS_SQL).
   */
  isMembershipActive(user: User, plan: Plan, now = new Date()): boolean {
    return plan.free || user.expires === null || user.expires.getTime() > now.getTime();
  }

  async effectivePlan(user: User & { plan?: Plan }): Promise<Plan> {
    const plan = user.plan ?? (await this.plans.findOneByOrFail({ id: user.planId }));
    return this.isMembershipActive(user, plan) ? plan : this.getFreePlan();
  }

  /** `pro` for an active paid plan, else `free`. */
  status(plan: Plan): 'free' | 'pro' {
    return plan.free ? 'free' : 'pro';
  }

  /** 403 when the caller's plan has the feature disabled. Admins are never limited. */
  assertFeature(auth: Principal, feature: FlagFeature): void {
    if (auth.isAdmin) return;
    const flag = auth.plan.limits[feature];
    if (!flag || flag.enabled !== '1') {
      throw new ForbiddenError(`Your plan does not include the "${feature}" feature`);
    }
  }

  /**
   * 403 when creating one more `feature` item would pass the plan's count
   * (`enabled: "0"` = unavailable, count "0" = unlimited). `current` is what the caller owns now.
   */
  assertCanCreate(auth: Principal, feature: CountedFeature, current: number): void {
    if (auth.isAdmin) return;
    this.assertFeature(auth, feature);
    const max = Number(auth.plan.limits[feature].count);
    if (max > 0 && current >= max) {
      throw new ForbiddenError(`Plan limit reached: your plan allows ${max} ${feature}`);
    }
  }

  /**
   * Saves one more row of a counted item for the caller: 403 when the limit is reached. `limit`
   * is a plan feature with a count (`domain`, `pixels`, `overlay`, `splash`, `team`: the plan's
   * count, never for admins) or a fixed cap of the service (`{ what: 'webhooks', max: 20 }`, for
   * everyone). The count is taken in the insert's transaction under a per-user advisory lock
   * keyed by the entity's table, so concurrent creations by one user queue up and cannot pass
   * the limit together. Every counted creation goes through here (links: `reserveLink`).
   * `then` runs in the same transaction with the saved row (the creation's audit entry).
   * `owner` is the column holding the owner's id: `userId`, or `workspaceId` for the tables of a
   * workspace whose `userId` is someone else (a member, a key's creator: given in `values`).
   */
  createCounted<E extends { userId: number }>(
    auth: Principal,
    limit: CountedFeature | FixedLimit,
    entity: Type<E>,
    values: DeepPartial<NoInfer<E>>,
    then?: (em: EntityManager, saved: E) => Promise<void>,
    owner: 'userId' | 'workspaceId' = 'userId',
  ): Promise<E> {
    const ownerId = auth.user.id;
    return this.db.transaction(async (em) => {
      const table = em.getRepository(entity).metadata.tableName;
      await em.query('SELECT pg_advisory_xact_lock(hashtext($1), $2)', [table, ownerId]);
      const owned = await em.countBy(entity, { [owner]: ownerId } as FindOptionsWhere<E>);
      if (typeof limit === 'string') this.assertCanCreate(auth, limit, owned);
      else if (owned >= limit.max)
        throw new ForbiddenError(
          `Limit reached: a ${limit.per ?? 'user'} may have ${limit.max} ${limit.what}`,
        );
      const saved = await em.save(
        em.create(entity, { [owner]: ownerId, ...values } as DeepPartial<E>),
      );
      if (then) await then(em, saved);
      return saved;
    });
  }

  /** The plan's `links` maximum for the caller; 0 = none (unlimited, and always for admins). */
  linksCap(auth: Principal): number {
    return auth.isAdmin ? 0 : Number(auth.plan.limits.links) || 0;
  }

  /**
   * What a user owns as the plan's `links` count sees it: short links, bio pages (a short code
   * served at `/<alias>` like a link), and QR codes of type link (their image encodes a short
   * link that forwards like one). Read from the counts the database keeps (`link_counts`, kept by
   * triggers on `links` and `qr_codes` in every writer's transaction): a few rows, whatever the
   * user owns. Call it inside the transaction that holds the user's row lock, with that
   * transaction's manager: its statement then sees every creation that held the lock before.
   */
  async linksOwned(em: EntityManager, userId: number): Promise<number> {
    const [row] = await em.query(
      `SELECT COALESCE(sum(n), 0) AS n FROM link_counts
        WHERE user_id = $1 AND kind IN ('link', 'bio', 'qr-link')`,
      [userId],
    );
    return Number(row.n);
  }

  /**
   * For a creation that adds one to the `links` count: when the plan caps it, takes the user's
   * row lock in `em`'s transaction (one creation at a time per user, so the count holds under
   * concurrency) and refuses (403) at the cap. Without a cap it does nothing: no lock, no count.
   */
  async reserveLink(em: EntityManager, auth: Principal): Promise<void> {
    const max = this.linksCap(auth);
    if (max === 0) return;
    await em.query('SELECT id FROM users WHERE id = $1 FOR UPDATE', [auth.user.id]);
    if ((await this.linksOwned(em, auth.user.id)) >= max)
      throw new ForbiddenError(`Plan limit reached: your plan allows ${max} links`);
  }
}
