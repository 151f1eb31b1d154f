import { createHash } from 'node:crypto';

import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';

import {
  ConflictError,
  decryptSecret,
  encryptSecret,
  formatDateTime,
  generateApiKey,
  InvalidFieldError,
  PlanService,
  sha256,
} from '@app/common';
import { AppConfig } from '@app/config';
import { Plan, PlanType, User } from '@app/database';

import { hashPassword } from './passwords';

export interface NewUser {
  email: string;
  username: string;
  password: string;
  planId?: number;
  planType?: PlanType | null;
  expires?: Date | null;
  isAdmin?: boolean;
  /** Use this key instead of generating one (admin bootstrap, tests). */
  apiKey?: string;
}

/** The documented Account shape. */
export interface AccountView {
  id: number;
  email: string;
  username: string;
  avatar: string;
  status: 'free' | 'pro';
  expires: string | null;
  registered: string;
}

/** The documented User shape of the admin routes (with the decrypted key). */
export interface UserView extends AccountView {
  planid: number;
  apikey: string;
}

/** Identity: creating users with their API key, and the documented views of a user. */
@Injectable()
export class UsersService {
  constructor(
    @InjectRepository(User) private readonly users: Repository<User>,
    @InjectRepository(Plan) private readonly plans: Repository<Plan>,
    private readonly planService: PlanService,
    private readonly config: AppConfig,
  ) {}

  /** Gravatar URL of an e-mail address. */
  static avatar(email: string): string {
    const digest = createHash('md5').update(email.trim().toLowerCase()).digest('hex');
    return `https://www.gravatar.com/avatar/${digest}?d=identicon`;
  }

  /** 409 naming the field when the e-mail or user name is taken (case-insensitive). */
  async assertUnique(email: string | undefined, username: string | undefined, exceptId?: number): Promise<void> {
    if (email !== undefined) {
      const qb = this.users.createQueryBuilder('u').where('lower(u.email) = lower(:email)', { email });
      if (exceptId) qb.andWhere('u.id <> :exceptId', { exceptId });
      if (await qb.getExists()) throw new ConflictError('email: a user with this e-mail already exists');
    }
    if (username !== undefined) {
      const qb = this.users.createQueryBuilder('u').where('lower(u.username) = lower(:username)', { username });
      if (exceptId) qb.andWhere('u.id <> :exceptId', { exceptId });
      if (await qb.getExists()) throw new ConflictError('username: this username is already taken');
    }
  }

  async create(input: NewUser): Promise<{ user: User; apiKey: string }> {
    await this.assertUnique(input.email, input.username);
    let planId = input.planId;
    if (planId === undefined) planId = (await this.planService.getFreePlan()).id;
    else if (!(await this.plans.existsBy({ id: planId }))) throw new InvalidFieldError('planid', 'no plan with this id');
    const apiKey = input.apiKey ?? generateApiKey();
    const user = this.users.create({
      email: input.email,
      username: input.username,
      passwordHash: await hashPassword(input.password),
      isAdmin: input.isAdmin ?? false,
      planId,
      planType: input.planType ?? null,
      expires: input.expires ?? null,
      apiKeyHash: sha256(apiKey),
      apiKeyEnc: encryptSecret(apiKey, this.config.secret),
      apiKeyExpires: null,
    });
    await this.users.save(user);
    return { user, apiKey };
  }

  /** Loads a user with its plan (and the encrypted key when `withKey`). */
  async findWithPlan(where: { id: number }, withKey = false): Promise<User | null> {
    const qb = this.users.createQueryBuilder('u').innerJoinAndSelect('u.plan', 'plan').where('u.id = :id', where);
    if (withKey) qb.addSelect('u.apiKeyEnc');
    return qb.getOne();
  }

  async accountView(user: User): Promise<AccountView> {
    const plan = await this.planService.effectivePlan(user);
    const active = this.planService.isMembershipActive(user, user.plan ?? plan);
    return {
      id: user.id,
      email: user.email,
      username: user.username,
      avatar: UsersService.avatar(user.email),
      status: this.planService.status(plan),
      expires: active ? formatDateTime(user.expires) : null,
      registered: formatDateTime(user.createdAt) as string,
    };
  }

  /** The admin view; `user` must have been loaded with its plan and `apiKeyEnc`. */
  async adminView(user: User): Promise<UserView> {
    return {
      ...(await this.accountView(user)),
      planid: user.planId,
      apikey: decryptSecret(user.apiKeyEnc, this.config.secret),
    };
  }
}
