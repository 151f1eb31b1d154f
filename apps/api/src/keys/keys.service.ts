import { Injectable } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { DataSource, Repository } from 'typeorm';

import {
  assertSendsAField,
  AuditLog,
  fieldsOf,
  FixedLimit,
  ForbiddenError,
  InvalidFieldError,
  NotFoundError,
  PageQueryDto,
  paginate,
  Paginated,
  PlanService,
  Principal,
  PrincipalCache,
  randomString,
  Scope,
  SCOPES,
  scopesAllow,
  scopesWithin,
  Need,
  sha256,
} from '@app/common';
import { ApiKey } from '@app/database';

import { AddKeyDto } from './dto/add-key.dto';
import { KeyCreatedView } from './dto/key-created.view';
import { parseExpires } from './dto/key-fields';
import { keyView, KeyView } from './dto/key.view';
import { UpdateKeyDto } from './dto/update-key.dto';

/** What starts every named key, so that a leaked one is recognised (secret scanners, logs). */
export const KEY_PREFIX = 'lk_';
/** Random characters after the prefix: [A-Za-z0-9] from a CSPRNG, about 238 bits. */
const KEY_RANDOM_LENGTH = 40;
/** The start of a key kept in clear and listed (`lk_` and 7 characters). */
const SHOWN_LENGTH = 10;
/** A cap of the service on named keys per workspace, against abuse (not a plan limit). */
export const MAX_KEYS: FixedLimit = { what: 'API keys', max: 100, per: 'workspace' };

/**
 * Named API keys of a workspace (CONTRACT "Teams, workspaces and API keys"). A key acts in the
 * workspace it was made in (`auth.user.id`) for its creator (`auth.actor.id`), within its scopes
 * and never beyond the creator's role there (the guard checks both on every request). Stored as
 * a SHA-256 digest like the personal key; every change is audited in its transaction and, once
 * committed, dropped from the guard's cache on every replica (PrincipalCache.forgetKeys).
 */
@Injectable()
export class KeysService {
  constructor(
    @InjectRepository(ApiKey) private readonly keys: Repository<ApiKey>,
    @InjectDataSource() private readonly db: DataSource,
    private readonly audit: AuditLog,
    private readonly cache: PrincipalCache,
    private readonly plans: PlanService,
  ) {}

  list(auth: Principal, query: PageQueryDto): Promise<Paginated<KeyView>> {
    const qb = this.keys
      .createQueryBuilder('k')
      .where('k.workspaceId = :workspaceId', { workspaceId: auth.user.id });
    return paginate(qb, query, 'keys', keyView);
  }

  /**
   * A new key, shown only in this answer. Counted against MAX_KEYS per workspace
   * (PlanService.createCounted: concurrent adds cannot pass it together).
   */
  async add(auth: Principal, dto: AddKeyDto): Promise<KeyCreatedView> {
    const scopes = this.grantable(auth, dto.scopes);
    const expires = dto.expires == null ? null : this.future(dto.expires);
    const key = `${KEY_PREFIX}${randomString(KEY_RANDOM_LENGTH)}`;
    const saved = await this.plans.createCounted(
      auth,
      MAX_KEYS,
      ApiKey,
      {
        userId: auth.actor.id,
        name: dto.name,
        prefix: key.slice(0, SHOWN_LENGTH),
        keyHash: sha256(key),
        scopes,
        expires,
      },
      (em, created) =>
        this.audit.record(em, auth, {
          action: 'key.create',
          resource: { type: 'key', id: created.id },
          changes: fieldsOf({ ...dto, expires: expires ?? undefined }),
        }),
      'workspaceId',
    );
    const { id } = saved;
    return { id, key };
  }

  /** Only the fields sent change; a scope or expiry change holds on every replica at once. */
  async update(auth: Principal, id: number, dto: UpdateKeyDto): Promise<void> {
    assertSendsAField(dto);
    const changes: Partial<ApiKey> = {};
    if (dto.name !== undefined) changes.name = dto.name;
    if (dto.scopes !== undefined) changes.scopes = this.grantable(auth, dto.scopes);
    if (dto.expires !== undefined)
      changes.expires = dto.expires === null ? null : this.future(dto.expires);
    await this.db.transaction(async (em) => {
      const key = await em.findOne(ApiKey, {
        select: { id: true, userId: true },
        where: { id, workspaceId: auth.user.id },
        lock: { mode: 'pessimistic_write' },
      });
      if (!key) throw new NotFoundError('API key');
      // `*` is whatever the key's creator may do: only the creator, or the owner (who may do
      // everything), may hand that out; an admin could otherwise lend itself the owner's role
      if (changes.scopes?.includes('*') && key.userId !== auth.actor.id && auth.role !== 'owner')
        throw new ForbiddenError(
          "scopes: only the key's creator or the workspace's owner may give it the scope *",
        );
      await em.update(ApiKey, { id }, changes);
      await this.audit.record(em, auth, {
        action: 'key.update',
        resource: { type: 'key', id },
        changes: fieldsOf(dto),
      });
    });
    await this.cache.forgetKeys([id]);
  }

  /** Revokes the key: refused on every replica within a second. */
  async remove(auth: Principal, id: number): Promise<void> {
    await this.db.transaction(async (em) => {
      const result = await em.delete(ApiKey, { id, workspaceId: auth.user.id });
      if (!result.affected) throw new NotFoundError('API key');
      await this.audit.record(em, auth, { action: 'key.delete', resource: { type: 'key', id } });
    });
    await this.cache.forgetKeys([id]);
  }

  /**
   * The scopes the caller may give a key, each once, in the order of SCOPES: none beyond its role
   * in the workspace and, when it calls with a named key, none beyond that key's scopes (`*` only
   * from `*`), so that a key cannot make a stronger key than itself. 403 naming the scope.
   */
  private grantable(auth: Principal, requested: readonly Scope[]): Scope[] {
    const scopes = SCOPES.filter((s) => requested.includes(s));
    for (const scope of scopes) {
      if (!scopesWithin(auth.role, [scope]))
        throw new ForbiddenError(
          `scopes: ${scope} is beyond your role ${auth.role} in this workspace`,
        );
      const held = auth.key?.scopes;
      if (held && !(scope === '*' ? held.includes('*') : scopesAllow(held, scope as Need)))
        throw new ForbiddenError(
          `scopes: this key lacks the scope ${scope}, so it cannot give it to another key`,
        );
    }
    return scopes;
  }

  /** An `expires` as a date in the future, else 400 naming it. */
  private future(value: string): Date {
    const date = parseExpires(value);
    if (!date) throw new InvalidFieldError('expires', 'is not a real date-time');
    if (date.getTime() <= Date.now())
      throw new InvalidFieldError('expires', 'must be in the future');
    return date;
  }
}
