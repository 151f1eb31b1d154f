import { createHash } from 'node:crypto';

import { Injectable, Logger } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';

import {
  activeMembershipSql,
  AuditLog,
  ConflictError,
  fieldsOf,
  decryptSecret,
  DeletedShortCode,
  encryptSecret,
  ForbiddenError,
  formatDateTime,
  generateApiKey,
  hashPassword,
  InvalidFieldError,
  NotFoundError,
  PageDefaults,
  pageRequest,
  PlanService,
  Principal,
  PrincipalCache,
  SessionStore,
  sha256,
  UserDeletedEvent,
} from '@app/common';
import { AppConfig } from '@app/config';
import { Plan, PlanType, User, violatedConstraint } from '@app/database';

import { CreateUserDto } from './dto/create-user.dto';
import { ListUsersQueryDto } from './dto/list-users-query.dto';
import { parseExpiration } from './expiration';

/** `GET /api/users` pages: 100 users by default, at most 1000 (docs/api-conventions.md). */
export const USERS_PAGE: PageDefaults = { limit: 100, max: 1000 };

/** Unique indexes of `users` and the field each one guards. */
const UNIQUE_FIELDS: Record<string, 'email' | 'username'> = {
  users_email_uq: 'email',
  users_username_uq: 'username',
};

const EMAIL_TAKEN = 'email: a user with this e-mail already exists';
const USERNAME_TAKEN = 'username: this username is already taken';

/** `%`, `_` and `\` match themselves in a LIKE pattern. */
const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

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
  apikey: string | null;
}

/** Identity: creating users with their API key, and the documented views of a user. */
@Injectable()
export class UsersService {
  private readonly logger = new Logger(UsersService.name);

  constructor(
    @InjectRepository(User) private readonly users: Repository<User>,
    @InjectRepository(Plan) private readonly plans: Repository<Plan>,
    private readonly planService: PlanService,
    private readonly config: AppConfig,
    private readonly owners: PrincipalCache,
    private readonly events: EventEmitter2,
    private readonly audit: AuditLog,
    private readonly sessions: SessionStore,
  ) {}

  /** Gravatar URL of an e-mail address. */
  static avatar(email: string): string {
    const digest = createHash('md5').update(email.trim().toLowerCase()).digest('hex');
    return `https://www.gravatar.com/avatar/${digest}?d=identicon`;
  }

  /** 409 naming the field when the e-mail or user name is taken (case-insensitive). */
  async assertUnique(
    email: string | undefined,
    username: string | undefined,
    exceptId?: number,
  ): Promise<void> {
    if (email !== undefined) {
      const qb = this.users
        .createQueryBuilder('u')
        .where('lower(u.email) = lower(:email)', { email });
      if (exceptId) qb.andWhere('u.id <> :exceptId', { exceptId });
      if (await qb.getExists()) throw new ConflictError(EMAIL_TAKEN);
    }
    if (username !== undefined) {
      const qb = this.users
        .createQueryBuilder('u')
        .where('lower(u.username) = lower(:username)', { username });
      if (exceptId) qb.andWhere('u.id <> :exceptId', { exceptId });
      if (await qb.getExists()) throw new ConflictError(USERNAME_TAKEN);
    }
  }

  /** A unique index's refusal as the 409 naming its field (e-mail or user name); `err` otherwise. */
  rethrowTaken(err: unknown): never {
    const constraint = violatedConstraint(err);
    const field = constraint ? UNIQUE_FIELDS[constraint] : undefined;
    if (field) throw new ConflictError(field === 'email' ? EMAIL_TAKEN : USERNAME_TAKEN);
    throw err;
  }

  /**
   * Creates a user with a new API key. An unknown `planId` is a 400 naming `planid`; a taken
   * e-mail or user name a 409 naming the field, also when a concurrent request wins the race
   * (the unique indexes decide). A free plan never expires: `expires` is dropped for it.
   * `then` runs in the insert's transaction with the new user (the admin's audit entry).
   */
  async create(
    input: NewUser,
    then?: (em: EntityManager, user: User) => Promise<void>,
  ): Promise<{ user: User; apiKey: string }> {
    const plan =
      input.planId === undefined
        ? await this.planService.getFreePlan()
        : await this.plans.findOneBy({ id: input.planId });
    if (!plan) throw new InvalidFieldError('planid', 'no plan with this id');
    await this.assertUnique(input.email, input.username);
    const apiKey = input.apiKey ?? generateApiKey();
    const user = this.users.create({
      email: input.email,
      username: input.username,
      passwordHash: await hashPassword(input.password),
      isAdmin: input.isAdmin ?? false,
      planId: plan.id,
      planType: plan.free ? null : (input.planType ?? null),
      expires: plan.free ? null : (input.expires ?? null),
      apiKeyHash: sha256(apiKey),
      apiKeyEnc: encryptSecret(apiKey, this.config.secret),
      apiKeyExpires: null,
    });
    try {
      await this.users.manager.transaction(async (em) => {
        await em.save(user);
        if (then) await then(em, user);
      });
    } catch (err) {
      this.rethrowTaken(err);
    }
    return { user, apiKey };
  }

  /**
   * `POST /api/user/add`: the documented `{id, email, username}` of the new user; audited as
   * `user.create` in the admin's workspace (field names only: `password`, never its value).
   */
  async add(
    auth: Principal,
    dto: CreateUserDto,
  ): Promise<{ id: number; email: string; username: string }> {
    const expires = dto.expiration === undefined ? null : parseExpiration(dto.expiration);
    const { user } = await this.create(
      {
        email: dto.email,
        username: dto.username,
        password: dto.password,
        planId: dto.planid,
        expires,
      },
      this.audit.created(auth, 'user', fieldsOf(dto)),
    );
    return { id: user.id, email: user.email, username: user.username };
  }

  /**
   * `GET /api/users`: newest first, filtered by status (`pro` = paid plan not past `expires`,
   * `free` = free plan or lapsed paid plan, `admin` = admins) and by an e-mail substring.
   */
  async list(query: ListUsersQueryDto): Promise<UserView[]> {
    const { limit, offset } = pageRequest(query, USERS_PAGE);
    const qb = this.users
      .createQueryBuilder('u')
      .innerJoinAndSelect('u.plan', 'plan')
      .addSelect('u.apiKeyEnc');
    if (query.filter === 'admin') qb.andWhere('u.isAdmin = true');
    // pro: a paid plan whose membership is active; free: the rest (PlanService's rule)
    const active = activeMembershipSql('u', 'plan');
    if (query.filter === 'pro') qb.andWhere(`NOT plan.free AND ${active}`);
    if (query.filter === 'free') qb.andWhere(`(plan.free OR NOT ${active})`);
    if (query.email)
      qb.andWhere(`u.email ILIKE :email ESCAPE '\\'`, { email: `%${escapeLike(query.email)}%` });
    const rows = await qb.orderBy('u.id', 'DESC').offset(offset).limit(limit).getMany();
    return Promise.all(rows.map((u) => this.adminView(u)));
  }

  /** `GET /api/user/:id`: the admin view, 404 for an unknown id. */
  async view(id: number): Promise<UserView> {
    const user = await this.findWithPlan({ id }, true);
    if (!user) throw new NotFoundError('User');
    return this.adminView(user);
  }

  /**
   * `DELETE /api/user/:id/delete`: one statement; the foreign keys cascade to everything the
   * user owns (links, QR codes, bio pages, domains, campaigns, channels, pixels, overlays, splash
   * pages, login links). Then UserDeletedEvent lets each feature clean up what lives elsewhere (cached
   * answers on every replica, QR image files). An admin cannot delete itself (403).
   */
  async remove(auth: Principal, id: number): Promise<void> {
    if (id === auth.user.id) throw new ForbiddenError('You cannot delete your own account');
    const [codes, domains] = await Promise.all([
      this.users.query(`SELECT kind, alias FROM links WHERE user_id = $1`, [id]) as Promise<
        DeletedShortCode[]
      >,
      this.users.query(`SELECT host FROM domains WHERE user_id = $1`, [id]) as Promise<
        Array<{ host: string }>
      >,
    ]);
    const audited = { action: 'user.delete', resource: { type: 'user', id } };
    await this.audit.change(auth, audited, async (em) => {
      const result = await em.delete(User, { id });
      if (!result.affected) throw new NotFoundError('User');
    });
    await this.owners.forgetUser(id);
    await this.sessions.endAll(id);
    await this.events.emitAsync(
      UserDeletedEvent.event,
      new UserDeletedEvent(
        id,
        codes,
        domains.map((d) => d.host),
      ),
    );
  }

  /**
   * Gives the user a new API key; the old one stops working at once on every api replica (its
   * cached owner is dropped everywhere), and every login link issued before it is revoked (a
   * login link hands out the key: one issued for the old key must not hand out the new one).
   * Returns the new key (shown once, like at creation). `then` runs in the rotation's
   * transaction (the audit entry: `account.rotate_key` or the admin's `user.rotate_key`).
   */
  async rotateKey(id: number, then?: (em: EntityManager) => Promise<void>): Promise<string> {
    const apiKey = generateApiKey();
    await this.users.manager.transaction(async (em) => {
      const result = await em.update(
        User,
        { id },
        { apiKeyHash: sha256(apiKey), apiKeyEnc: encryptSecret(apiKey, this.config.secret) },
      );
      if (!result.affected) throw new NotFoundError('User');
      await em.query(
        `UPDATE login_tokens SET revoked_at = now()
          WHERE user_id = $1 AND used_at IS NULL AND revoked_at IS NULL`,
        [id],
      );
      if (then) await then(em);
    });
    await this.owners.forgetUser(id);
    return apiKey;
  }

  /** `POST /api/user/:id/key/rotate`: rotateKey, audited as `user.rotate_key` in the admin's workspace. */
  rotateKeyOf(auth: Principal, id: number): Promise<string> {
    return this.rotateKey(id, (em) =>
      this.audit.record(em, auth, {
        action: 'user.rotate_key',
        resource: { type: 'user', id },
        changes: ['apikey'],
      }),
    );
  }

  /**
   * The operator's `admin:key` command: the key of the user with this e-mail (any case), read
   * from its stored copy, or a new one when `rotate` (as `POST /api/user/:id/key/rotate` does).
   * Null when no user has this e-mail; `key` null when the stored copy is sealed under another
   * APP_SECRET.
   */
  async keyByEmail(
    email: string,
    rotate: boolean,
  ): Promise<{ id: number; key: string | null } | null> {
    const user = await this.users
      .createQueryBuilder('u')
      .addSelect('u.apiKeyEnc')
      .where('lower(u.email) = lower(:email)', { email })
      .getOne();
    if (!user) return null;
    return { id: user.id, key: rotate ? await this.rotateKey(user.id) : this.readableKey(user) };
  }

  /** Loads a user with its plan (and the encrypted key when `withKey`). */
  async findWithPlan(where: { id: number }, withKey = false): Promise<User | null> {
    const qb = this.users
      .createQueryBuilder('u')
      .innerJoinAndSelect('u.plan', 'plan')
      .where('u.id = :id', where);
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
    const { id, email, username, avatar, status, expires, registered } =
      await this.accountView(user);
    const apikey = this.readableKey(user);
    return {
      id,
      email,
      username,
      avatar,
      status,
      planid: user.planId,
      expires,
      registered,
      apikey,
    };
  }

  /**
   * The stored copy of the user's key, or null when it was sealed under another APP_SECRET (the
   * key still authenticates by its digest; rotating it stores a readable copy again).
   */
  private readableKey(user: User): string | null {
    try {
      return decryptSecret(user.apiKeyEnc, this.config.secret);
    } catch {
      this.logger.warn(
        `user ${user.id}: stored API key copy not readable with this APP_SECRET; rotate the key to replace it`,
      );
      return null;
    }
  }
}
