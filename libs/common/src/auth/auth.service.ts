import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';

import { User } from '@app/database';

import { sha256 } from '../util/crypto';
import { PRINCIPAL } from './decorators';
import { AuthResult } from './principal';
import { KeyOwner, PrincipalCache } from './principal-cache';
import { PlanService } from './plan.service';

const AUTH_RESULT = Symbol('auth-result');
const MAX_KEY_LENGTH = 256;

type AuthRequest = { headers: Record<string, string | string[] | undefined> } & Record<
  symbol,
  unknown
>;

/** Resolves the API key (Bearer or Token scheme) of a request to a principal (once per request). */
@Injectable()
export class AuthService {
  constructor(
    @InjectRepository(User) private readonly users: Repository<User>,
    private readonly plans: PlanService,
    private readonly owners: PrincipalCache,
  ) {}

  /**
   * The key sent as `Authorization: Bearer <key>` or `Authorization: Token <key>` (older clients
   * and the vendor's wrappers; the scheme word in any case), or null.
   */
  static bearer(header: string | string[] | undefined): string | null {
    const value = Array.isArray(header) ? header[0] : header;
    const m = /^(?:Bearer|Token)\s+(\S+)\s*$/i.exec(value ?? '');
    return m && m[1].length <= MAX_KEY_LENGTH ? m[1] : null;
  }

  /** Looks the key up by digest; the result is kept on the request for the guard and `@Auth()`. */
  async resolve(req: AuthRequest): Promise<AuthResult> {
    const cached = req[AUTH_RESULT] as AuthResult | undefined;
    if (cached) return cached;
    const result = await this.lookup(AuthService.bearer(req.headers.authorization));
    req[AUTH_RESULT] = result;
    if ('principal' in result) req[PRINCIPAL] = result.principal;
    return result;
  }

  private async lookup(key: string | null): Promise<AuthResult> {
    if (!key) return { failure: 'missing' };
    const digest = sha256(key);
    const user = await this.owners.resolve(digest, this.load);
    if (!user) return { failure: 'invalid' };
    if (user.apiKeyExpires && user.apiKeyExpires.getTime() <= Date.now())
      return { failure: 'expired' };
    const plan = await this.plans.effectivePlan(user);
    return { principal: { user, plan, isAdmin: user.isAdmin } };
  }

  /** The owner of a key digest, from Postgres. */
  private readonly load = (digest: string): Promise<KeyOwner | null> =>
    this.users
      .createQueryBuilder('u')
      .innerJoinAndSelect('u.plan', 'plan')
      .where('u.api_key_hash = :hash', { hash: digest })
      .getOne() as Promise<KeyOwner | null>;
}
