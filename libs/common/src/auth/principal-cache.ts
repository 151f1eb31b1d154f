import { Injectable, OnModuleDestroy } from '@nestjs/common';

import { AppConfig } from '@app/config';
import { Plan, User } from '@app/database';
import { CacheBus, SharedCache } from '@app/redis';

/** A key's user with their own plan, as read from Postgres (expiry is checked on every use). */
export type KeyOwner = User & { plan: Plan };

const userTag = (userId: number) => `user:${userId}`;

/**
 * The owners of recently used API keys, by key digest, so an API call costs no Postgres query
 * for its key (measured: about half the CPU of a cheap call such as `GET /api/account`).
 *
 * A SharedCache (libs/redis) without a Redis layer: held for AUTH_CACHE_SECONDS at most, only
 * while this process hears invalidations, and dropped on every replica when a change to the user
 * (plan, account, deletion) calls `forgetUser` after it commits. Changes made behind the API's
 * back (SQL by hand) are seen within AUTH_CACHE_SECONDS. Time-based expiry (key, membership) is
 * evaluated on every request from the cached dates, so it is exact. Unknown keys are not cached,
 * and no password or key material is held (those columns are never selected).
 */
@Injectable()
export class PrincipalCache implements OnModuleDestroy {
  private readonly owners: SharedCache<KeyOwner>;

  constructor(bus: CacheBus, config: AppConfig) {
    const seconds = config.AUTH_CACHE_SECONDS;
    this.owners = bus.cache<KeyOwner>({
      name: 'auth',
      max: seconds > 0 ? 10_000 : 0,
      ttlMs: seconds * 1000,
      cacheMissing: false,
      tags: (owner) => [userTag(owner.id)],
    });
  }

  onModuleDestroy(): void {
    this.owners.close();
  }

  /** The cached owner of a key digest, if any (memory only). */
  get(digest: string): KeyOwner | undefined {
    return this.owners.peek(digest) ?? undefined;
  }

  /** The owner of a key digest: from memory, else `load` (Postgres); null for an unknown key. */
  resolve(
    digest: string,
    load: (digest: string) => Promise<KeyOwner | null>,
  ): Promise<KeyOwner | null> {
    return this.owners.get(digest, load);
  }

  /** Forgets a user's keys here and on every replica. Call it after the change committed. */
  async forgetUser(userId: number): Promise<void> {
    await this.owners.invalidate([userTag(userId)]);
  }
}
