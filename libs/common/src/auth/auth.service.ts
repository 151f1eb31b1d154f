import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';

import { ApiKey, MemberRole, User, WorkspaceMember } from '@app/database';

import { sha256 } from '../util/crypto';
import { PRINCIPAL } from './decorators';
import { KeyUsage } from './key-usage';
import { AuthResult } from './principal';
import { Credential, KeyOwner, Membership, PrincipalCache } from './principal-cache';
import { PlanService } from './plan.service';
import { CSRF_HEADER, csrfMatches, sessionToken, SessionStore } from './sessions';

const AUTH_RESULT = Symbol('auth-result');
const MAX_KEY_LENGTH = 256;
/** The header a member names the workspace it acts in with. */
export const WORKSPACE_HEADER = 'x-workspace';

type AuthRequest = {
  method?: string;
  headers: Record<string, string | string[] | undefined>;
} & Record<symbol, unknown>;

/** Methods a session may use without `X-CSRF-Token` (they change nothing). */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Resolves a request to a principal, once per request: the API key (Bearer or Token scheme; the
 * personal key or a named key) → its user → the workspace (its own; `X-Workspace` when a member;
 * a named key's own) → the role there. Cached by PrincipalCache.
 *
 * Without an Authorization header, a session cookie (SessionStore, the dashboard) stands for its
 * user as the personal key would (one Redis read); its writes need `X-CSRF-Token`. A request with
 * an Authorization header is judged by it alone: the cookie is not looked at.
 */
@Injectable()
export class AuthService {
  constructor(
    @InjectRepository(User) private readonly users: Repository<User>,
    @InjectRepository(ApiKey) private readonly keys: Repository<ApiKey>,
    @InjectRepository(WorkspaceMember) private readonly members: Repository<WorkspaceMember>,
    private readonly plans: PlanService,
    private readonly cache: PrincipalCache,
    private readonly usage: KeyUsage,
    private readonly sessions: SessionStore,
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

  /** `X-Workspace`: absent → undefined, a positive id → it, anything else → NaN. */
  static workspace(header: string | string[] | undefined): number | undefined {
    if (header === undefined) return undefined;
    const value = (Array.isArray(header) ? header[0] : header).trim();
    return /^[1-9]\d{0,9}$/.test(value) && Number(value) <= 2_147_483_647 ? Number(value) : NaN;
  }

  /** Resolves the request; the result is kept on the request for the guard and `@Auth()`. */
  async resolve(req: AuthRequest): Promise<AuthResult> {
    const cached = req[AUTH_RESULT] as AuthResult | undefined;
    if (cached) return cached;
    const { headers } = req;
    const result =
      headers.authorization === undefined && headers.cookie !== undefined
        ? await this.sessionLookup(req)
        : await this.lookup(
            AuthService.bearer(headers.authorization),
            AuthService.workspace(headers[WORKSPACE_HEADER]),
          );
    req[AUTH_RESULT] = result;
    if ('principal' in result) req[PRINCIPAL] = result.principal;
    return result;
  }

  private async lookup(key: string | null, header: number | undefined): Promise<AuthResult> {
    if (!key) return { failure: 'missing' };
    const credential = await this.cache.resolve(sha256(key), this.loadCredential);
    if (!credential) return { failure: 'invalid' };
    const { actor, key: named } = credential;
    const expires = named ? named.expires : actor.apiKeyExpires;
    if (expires && expires.getTime() <= Date.now()) return { failure: 'expired' };
    if (Number.isNaN(header)) return { failure: 'bad-workspace' };
    // a named key acts in its own workspace only
    if (named && header !== undefined && header !== named.workspaceId)
      return { failure: 'no-workspace' };
    const workspaceId = named ? named.workspaceId : (header ?? actor.id);

    let owner: KeyOwner = actor;
    let role: 'owner' | MemberRole = 'owner';
    if (workspaceId !== actor.id) {
      const membership = await this.cache.membership(workspaceId, actor.id, this.loadMembership);
      if (!membership) return { failure: named ? 'invalid' : 'no-workspace' };
      ({ owner, role } = membership);
    }
    if (named) this.usage.used(named.id);
    const plan = await this.plans.effectivePlan(owner);
    return {
      principal: {
        user: owner,
        plan,
        isAdmin: owner.isAdmin,
        actor,
        role,
        key: named ? { id: named.id, scopes: named.scopes } : null,
      },
    };
  }

  /**
   * A request with a session cookie and no Authorization header: the session's user acts as with
   * its personal key (its own workspace, or `X-Workspace` as a member); a method other than GET,
   * HEAD and OPTIONS needs the session's CSRF token. Kept apart from `lookup`, whose key path
   * stays as it was.
   */
  private async sessionLookup(req: AuthRequest): Promise<AuthResult> {
    const token = sessionToken(req.headers.cookie);
    if (!token) return { failure: 'missing' };
    const session = await this.sessions.read(token);
    if (!session) return { failure: 'session' };
    if (!SAFE_METHODS.has(req.method ?? 'GET') && !csrfMatches(session, req.headers[CSRF_HEADER]))
      return { failure: 'csrf' };
    const header = AuthService.workspace(req.headers[WORKSPACE_HEADER]);
    if (Number.isNaN(header)) return { failure: 'bad-workspace' };
    const actor = await this.cache.user(session.userId, this.loadSessionUser);
    if (!actor) return { failure: 'session' };

    let owner: KeyOwner = actor;
    let role: 'owner' | MemberRole = 'owner';
    if (header !== undefined && header !== actor.id) {
      const membership = await this.cache.membership(header, actor.id, this.loadMembership);
      if (!membership) return { failure: 'no-workspace' };
      ({ owner, role } = membership);
    }
    const plan = await this.plans.effectivePlan(owner);
    return {
      principal: {
        user: owner,
        plan,
        isAdmin: owner.isAdmin,
        actor,
        role,
        key: null,
        session: true,
      },
    };
  }

  private loadUser(where: string, value: string | number): Promise<KeyOwner | null> {
    return this.users
      .createQueryBuilder('u')
      .innerJoinAndSelect('u.plan', 'plan')
      .where(where, { value })
      .getOne() as Promise<KeyOwner | null>;
  }

  /** A session's user, from Postgres. */
  private readonly loadSessionUser = (userId: number): Promise<KeyOwner | null> =>
    this.loadUser('u.id = :value', userId);

  /** The user of a key digest (personal key, else a named key), from Postgres. */
  private readonly loadCredential = async (digest: string): Promise<Credential | null> => {
    const actor = await this.loadUser('u.api_key_hash = :value', digest);
    if (actor) return { actor, key: null };
    const key = await this.keys
      .createQueryBuilder('k')
      .select(['k.id', 'k.workspaceId', 'k.userId', 'k.scopes', 'k.expires'])
      .where('k.key_hash = :digest', { digest })
      .getOne();
    if (!key) return null;
    const creator = await this.loadUser('u.id = :value', key.userId);
    if (!creator) return null;
    return {
      actor: creator,
      key: { id: key.id, workspaceId: key.workspaceId, scopes: key.scopes, expires: key.expires },
    };
  };

  /** A member's role in a workspace and the workspace's owner, from Postgres. */
  private readonly loadMembership = async (
    workspaceId: number,
    userId: number,
  ): Promise<Membership | null> => {
    const member = await this.members.findOne({
      select: { role: true },
      where: { workspaceId, userId },
    });
    if (!member) return null;
    const owner = await this.loadUser('u.id = :value', workspaceId);
    return owner ? { userId, role: member.role, owner } : null;
  };
}
