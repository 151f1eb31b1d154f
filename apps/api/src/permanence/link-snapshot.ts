import { Stats, unwatchFile, watchFile } from 'node:fs';
import { readFile } from 'node:fs/promises';

import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';

import { AppConfig } from '@app/config';
import { isUnavailable } from '@app/database';
import {
  BlocklistMatcher,
  CachedLink,
  readSnapshot,
  ResolvedHost,
  SnapshotError,
  SnapshotIndex,
  snapshotKey,
  snapshotPath,
  screenLink,
  Screener,
  toCached,
  toHost,
} from '@app/links';
import { RedisService } from '@app/redis';

/** How often the file is checked for a new snapshot (its mtime and size). */
const WATCH_MS = 1000;
/**
 * While answering from the snapshot, one lookup per this many milliseconds still tries the
 * stores (Postgres first); the others go straight to the snapshot, so an outage where
 * connections hang (a partition) does not hold every redirect for the connection timeout.
 */
export const OUTAGE_PROBE_MS = 1000;
/** Decoded links kept (each with its compiled route): the hot links of an outage. */
const DECODED_MAX = 20_000;

/** A short code of the snapshot as the redirector serves it. */
export interface SnapshotEntry {
  link: CachedLink;
  /**
   * Matched the snapshot's blocklist (the entries when it was written), kept whatever this
   * process's own list says.
   */
  blocked: boolean;
  /** The click-limit counter when the snapshot was written. */
  clicks: number;
}

/** A branded domain of the snapshot. */
export interface SnapshotDomain {
  host: ResolvedHost;
  rootBlocked: boolean;
  notFoundBlocked: boolean;
}

/**
 * The api's side of the link snapshot (docs/link-permanence.md): loads the file the worker writes
 * (STORAGE_DIR) in the background after start, and again whenever it changes, checking its
 * signature first: a snapshot that fails it is logged and ignored (the one loaded before stays).
 * It serves only while Postgres and Redis are both unreachable: the redirector asks `covers` when
 * a lookup has failed, so the normal path costs nothing.
 */
@Injectable()
export class LinkSnapshot implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(LinkSnapshot.name);
  readonly path: string;
  private readonly key: Buffer;
  private index: SnapshotIndex | null = null;
  /** The snapshot's blocklist (generation 1: every decoded link is screened once). */
  private screener: Screener = { generation: 1, match: () => null };
  private readonly decoded = new Map<string, SnapshotEntry | null>();
  private readonly domains = new Map<string, SnapshotDomain>();
  private loading: Promise<boolean> | null = null;
  private again = false;
  private outageUntil = 0;
  private watching = false;
  /**
   * Set by the starting front (apps/api/src/starting): its Postgres is not connected at all, so
   * the snapshot covers a lookup Postgres failed even while Redis is ready (links Redis holds
   * are still answered from Redis first).
   */
  starting = false;

  constructor(
    private readonly redis: RedisService,
    private readonly config: AppConfig,
  ) {
    this.path = snapshotPath(config.STORAGE_DIR);
    this.key = snapshotKey(config.secret);
  }

  onApplicationBootstrap(): void {
    if (!this.config.SNAPSHOT_SECONDS) return;
    // never on the start-up path: the first load runs once the process is serving
    setImmediate(() => void this.reload());
    watchFile(this.path, { interval: WATCH_MS, persistent: false }, this.changed);
    this.watching = true;
  }

  onModuleDestroy(): void {
    if (this.watching) unwatchFile(this.path, this.changed);
  }

  private readonly changed = (now: Stats, before: Stats): void => {
    if (now.mtimeMs !== before.mtimeMs || now.size !== before.size || now.ino !== before.ino)
      void this.reload();
  };

  /** When the loaded snapshot was written (epoch ms), null when none is loaded. */
  get createdAt(): number | null {
    return this.index?.createdAt ?? null;
  }

  get links(): number {
    return this.index?.links ?? 0;
  }

  /**
   * Reads the file and swaps it in when its signature holds; false (logged) when it is missing,
   * unreadable or refused. Loads never overlap: one asked for meanwhile runs after.
   */
  reload(): Promise<boolean> {
    if (this.loading) {
      this.again = true;
      return this.loading;
    }
    this.loading = this.load().finally(() => {
      this.loading = null;
      if (this.again) {
        this.again = false;
        void this.reload();
      }
    });
    return this.loading;
  }

  private async load(): Promise<boolean> {
    const started = Date.now();
    let data: Buffer;
    try {
      data = await readFile(this.path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT')
        this.logger.warn(`link snapshot not read: ${(err as Error).message}`);
      return false;
    }
    try {
      const index = await readSnapshot(data, this.key);
      const matcher = new BlocklistMatcher(index.blocklist);
      this.index = index;
      this.screener = { generation: 1, match: (url) => matcher.match(url) };
      this.decoded.clear();
      this.domains.clear();
      this.logger.log(
        `link snapshot loaded: ${index.links} links, ${index.hosts.size} hosts, written ${new Date(index.createdAt).toISOString()}, in ${Date.now() - started} ms`,
      );
      return true;
    } catch (err) {
      const reason = err instanceof SnapshotError ? err.message : `unreadable: ${String(err)}`;
      this.logger.error(
        `link snapshot refused (${reason}): ${this.path} is ignored${this.index ? ', the one loaded before stays' : ''}`,
      );
      return false;
    }
  }

  /**
   * Whether a lookup that failed with `err` is answered from the snapshot: one is loaded, Redis is
   * unreachable (or the process is `starting`), and the failure is Postgres being unreachable.
   * Starts the outage window.
   */
  covers(err: unknown): boolean {
    if (!this.index || (this.redis.ready && !this.starting) || !isUnavailable(err)) return false;
    this.outageUntil = Date.now() + OUTAGE_PROBE_MS;
    return true;
  }

  /** Within an outage window (see OUTAGE_PROBE_MS): lookups go to the snapshot directly. */
  get outage(): boolean {
    if (this.outageUntil === 0) return false;
    if (Date.now() < this.outageUntil && !this.redis.ready) return true;
    this.outageUntil = 0;
    return false;
  }

  /** The short code of `alias`: null when the snapshot has none, undefined when none is loaded. */
  link(alias: string): SnapshotEntry | null | undefined {
    const index = this.index;
    if (!index) return undefined;
    let entry = this.decoded.get(alias);
    if (entry === undefined) {
      const found = index.link(alias);
      if (found) {
        const link = toCached(found.link);
        screenLink(this.screener, link);
        entry = { link, blocked: link.blocked, clicks: found.clicks };
        // the redirector screens it again with this process's list (and keeps `blocked`)
        link.screenedAt = 0;
        link.blocked = false;
      } else entry = null;
      if (this.decoded.size >= DECODED_MAX) this.decoded.clear();
      this.decoded.set(alias, entry);
    }
    return entry;
  }

  /** The branded domain of `host`, or null (also when no snapshot is loaded). */
  domain(host: string): SnapshotDomain | null {
    const index = this.index;
    if (!index) return null;
    let domain = this.domains.get(host);
    if (!domain) {
      const found = index.hosts.get(host);
      if (!found) return null;
      domain = {
        host: toHost(found),
        rootBlocked: found.rootBlocked,
        notFoundBlocked: found.notFoundBlocked,
      };
      this.domains.set(host, domain);
    }
    return domain;
  }
}
