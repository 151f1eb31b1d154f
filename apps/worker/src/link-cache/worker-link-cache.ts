import { Injectable, OnModuleDestroy } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

import { LinkCacheAccess } from '@app/links';
import { CacheBus, SharedCache } from '@app/redis';

const HOST_MEMO_MS = 5_000;
const HOST_MEMO_SIZE = 10_000;

/**
 * The api's link cache as the worker sees it: it holds no link. A branded host is read from
 * Postgres (remembered for seconds); forgetting aliases goes through the same SharedCache
 * invalidation as the api's LinkCache (cache `link`: its Redis entries deleted, every api replica
 * told over the CacheBus).
 */
@Injectable()
export class WorkerLinkCache extends LinkCacheAccess implements OnModuleDestroy {
  private readonly links: SharedCache<object>;
  private readonly hosts = new Map<string, { branded: boolean; until: number }>();

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    bus: CacheBus,
  ) {
    super();
    this.links = bus.cache<object>({
      name: 'link',
      max: 0,
      ttlMs: 0,
      // only invalidated here: never read, never written
      remote: {
        ttlSeconds: 1,
        missingTtlSeconds: 1,
        encode: (v) => JSON.stringify(v),
        decode: (raw) => JSON.parse(raw) as object,
      },
    });
  }

  onModuleDestroy(): void {
    this.links.close();
  }

  /**
   * Answers are kept HOST_MEMO_MS (an import checks every row's host, mostly the same few), as
   * long as the api keeps a known-missing host in memory.
   */
  async isBrandedHost(host: string): Promise<boolean> {
    const now = Date.now();
    const held = this.hosts.get(host);
    if (held && held.until > now) return held.branded;
    const rows: unknown[] = await this.db.query('SELECT 1 FROM domains WHERE host = $1', [host]);
    if (this.hosts.size >= HOST_MEMO_SIZE) this.hosts.clear();
    this.hosts.set(host, { branded: rows.length > 0, until: now + HOST_MEMO_MS });
    return rows.length > 0;
  }

  forgetAliases(aliases: string[]): Promise<void> {
    return this.links.invalidate(aliases);
  }
}
