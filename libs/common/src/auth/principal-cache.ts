import { Injectable, OnModuleDestroy } from '@nestjs/common';

import { AppConfig } from '@app/config';
import { MemberRole, Plan, User } from '@app/database';

import { CacheBus, SharedCache } from '@app/redis';

/** A key's user with their own plan, as read from Postgres (expiry is checked on every use). */
export type KeyOwner = User & { plan: Plan };

/** A named key as the guard needs it (never the key or its digest). */
export interface NamedKey {
  id: number;
  workspaceId: number;
  scopes: string[];
  expires: Date | null;
}

/** What a key digest stands for: its user (the actor), and the named key when it is one. */
export interface Credential {
  actor: KeyOwner;
  key: NamedKey | null;
}

/** A member's place in a workspace: its role and the workspace's owner. */
export interface Membership {
  /** The member. */
  userId: number;
  role: MemberRole;
  owner: KeyOwner;
}

const userTag = (userId: number) => `user:${userId}`;
const keyTag = (keyId: number) => `key:${keyId}`;
const workspaceTag = (workspaceId: number) => `workspace:${workspaceId}`;
const memberKey = (workspaceId: number, userId: number) => `${workspaceId}:${userId}`;
/** A session's user in the credentials cache (never a key digest: those are 64 hex digits). */
const sessionUserKey = (userId: number) => `session-user:${userId}`;

/**
 * What the guard resolves on every API call, so that a call costs no Postgres query for it
 * (measured: about half the CPU of a cheap call such as `GET /api/account`): the credential of a
 * key digest (its user, and the named key) and the membership of a user in a workspace.
 *
 * SharedCaches (libs/redis) without a Redis layer: held for AUTH_CACHE_SECONDS at most, only
 * while this process hears invalidations, and dropped on every replica when a change calls one
 * of the `forget…` methods after it commits (a user's plan, account or deletion; a member added,
 * changed or removed; a named key changed or revoked). Changes made behind the API's back (SQL by
 * hand) are seen within AUTH_CACHE_SECONDS. Time-based expiry (keys, membership) is evaluated on
 * every request from the cached dates, so it is exact. Unknown keys are not cached; "not a
 * member" is (dropped when that member is added). No password or key material is held.
 */
@Injectable()
export class PrincipalCache implements OnModuleDestroy {
  private readonly credentials: SharedCache<Credential>;
  private readonly memberships: SharedCache<Membership>;

  constructor(bus: CacheBus, config: AppConfig) {
    const seconds = config.AUTH_CACHE_SECONDS;
    const max = seconds > 0 ? 10_000 : 0;
    this.credentials = bus.cache<Credential>({
      name: 'auth',
      max,
      ttlMs: seconds * 1000,
      cacheMissing: false,
      tags: (c) => [
        userTag(c.actor.id),
        ...(c.key ? [keyTag(c.key.id), workspaceTag(c.key.workspaceId)] : []),
      ],
    });
    this.memberships = bus.cache<Membership>({
      name: 'member',
      max,
      ttlMs: seconds * 1000,
      cacheMissing: true,
      tags: (m) => [userTag(m.userId), userTag(m.owner.id), workspaceTag(m.owner.id)],
    });
  }

  onModuleDestroy(): void {
    this.credentials.close();
    this.memberships.close();
  }

  /** The cached credential of a key digest, if any (memory only). */
  get(digest: string): Credential | undefined {
    return this.credentials.peek(digest) ?? undefined;
  }

  /** The credential of a key digest: from memory, else `load` (Postgres); null for an unknown key. */
  resolve(
    digest: string,
    load: (digest: string) => Promise<Credential | null>,
  ): Promise<Credential | null> {
    return this.credentials.get(digest, load);
  }

  /**
   * A user by id with its plan, as the actor of a session: from memory, else `load` (Postgres);
   * null for a user that no longer exists. Held with the key credentials (dropped by forgetUser).
   */
  async user(
    userId: number,
    load: (userId: number) => Promise<KeyOwner | null>,
  ): Promise<KeyOwner | null> {
    const credential = await this.credentials.get(sessionUserKey(userId), async () => {
      const actor = await load(userId);
      return actor ? { actor, key: null } : null;
    });
    return credential?.actor ?? null;
  }

  /** A user's membership of a workspace, or null when not a member. */
  membership(
    workspaceId: number,
    userId: number,
    load: (workspaceId: number, userId: number) => Promise<Membership | null>,
  ): Promise<Membership | null> {
    return this.memberships.get(memberKey(workspaceId, userId), () => load(workspaceId, userId));
  }

  /** Forgets a user's keys and memberships here and on every replica. Call it after the change committed. */
  async forgetUser(userId: number): Promise<void> {
    const names = [userTag(userId)];
    await Promise.all([this.credentials.invalidate(names), this.memberships.invalidate(names)]);
  }

  /**
   * Forgets a member's place in a workspace (added, role changed, removed) and the named keys
   * acting in it, here and on every replica. Call it after the change committed.
   */
  async forgetMember(workspaceId: number, userId: number): Promise<void> {
    await Promise.all([
      this.memberships.invalidate([memberKey(workspaceId, userId), workspaceTag(workspaceId)]),
      this.credentials.invalidate([workspaceTag(workspaceId)]),
    ]);
  }

  /** Forgets named keys (changed or revoked) here and on every replica. Call it after the change committed. */
  async forgetKeys(keyIds: number[]): Promise<void> {
    await this.credentials.invalidate(keyIds.map(keyTag));
  }
}
