import { readFile } from 'node:fs/promises';

import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';

import { AppConfig } from '@app/config';
import {
  detectFeedFormat,
  FeedEntry,
  parseFeed,
  parseThreatFeeds,
  ThreatFeedKeys,
  ThreatFeedSource,
  ThreatFeedState,
} from '@app/links';
import { RedisService } from '@app/redis';

import { LinkRescan } from './link-rescan';

/** The largest feed read (bytes); a bigger one fails to load (the previous set stays). */
export const MAX_FEED_BYTES = 512 * 1024 * 1024;
/** How long a download may take. */
const FETCH_TIMEOUT_MS = 120_000;
/** A worker holds a feed's load lock this long at most (another may take over after). */
const LOCK_SECONDS = 600;
/** A half-written `next` set of a worker that died is dropped after this. */
const NEXT_TTL_SECONDS = 3600;

/** The text of a feed: a file, or an http(s) URL (2xx only, size capped). */
async function readSource(source: string): Promise<string> {
  if (!/^https?:\/\//i.test(source)) {
    const text = await readFile(source, 'utf8');
    if (text.length > MAX_FEED_BYTES) throw new Error('feed larger than 512 MB');
    return text;
  }
  const res = await fetch(source, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
  if (!res.ok) throw new Error(`HTTP ${res.status}`);
  const length = Number(res.headers.get('content-length') ?? 0);
  if (length > MAX_FEED_BYTES || !res.body) {
    await res.body?.cancel();
    throw new Error(res.body ? 'feed larger than 512 MB' : 'empty answer');
  }
  // read with a running count: a chunked answer has no length to check beforehand
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    // leaving the loop cancels the download
    if (size > MAX_FEED_BYTES) throw new Error('feed larger than 512 MB');
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** An error's message with its cause (fetch says only "fetch failed" and puts the reason there). */
function describe(err: unknown): string {
  const e = err as Error & { cause?: { message?: string; code?: string } };
  const cause = e.cause?.code ?? e.cause?.message;
  return `${e.message || String(err)}${cause ? ` (${cause})` : ''}`;
}

/**
 * Loads the threat feeds (THREAT_FEEDS) into Redis at start and every THREAT_FEED_MINUTES, for
 * every api replica (ThreatFeeds) to match against. Each feed: read, its format detected from its
 * content, parsed and written into a fresh hash in batches (one HSET of PARSE_BATCH entries at a
 * time, awaited: the worker's other jobs run between batches), then swapped for the live set in
 * one MULTI. A feed that fails (unreachable, unreadable, no entry at all) keeps its previous set
 * and records the error. Several workers: a lock per feed, and a feed loaded less than
 * THREAT_FEED_MINUTES ago (by any worker) is not loaded again.
 */
@Injectable()
export class ThreatFeedLoader implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(ThreatFeedLoader.name);
  readonly feeds: ThreatFeedSource[];
  private readonly keys: ThreatFeedKeys;
  private readonly everyMs: number;
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private closed = false;

  constructor(
    private readonly redis: RedisService,
    config: AppConfig,
    private readonly rescan: LinkRescan,
  ) {
    this.feeds = parseThreatFeeds(config.THREAT_FEEDS);
    this.keys = new ThreatFeedKeys(redis);
    this.everyMs = config.THREAT_FEED_MINUTES * 60_000;
  }

  onApplicationBootstrap(): void {
    if (!this.feeds.length) return;
    const tick = () => {
      if (this.running || this.closed) return;
      this.running = this.refresh()
        .then(() => undefined)
        .catch((err: Error) => this.logger.warn(`threat feeds: ${err.message}`))
        .finally(() => (this.running = undefined));
    };
    setImmediate(tick);
    // checked every minute: the state in Redis says when each feed is due (any worker may load it)
    this.timer = setInterval(tick, Math.min(60_000, this.everyMs));
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    await this.running;
  }

  /**
   * Loads every feed that is due (`force`: every feed); returns the names loaded or attempted.
   * When a feed's set changed, the links' targets are re-scanned against the new sets before it
   * returns (LinkRescan.scanFeeds): a refresh flags the links it concerns.
   */
  async refresh(force = false): Promise<string[]> {
    const done: string[] = [];
    let loaded = false;
    for (const feed of this.feeds) {
      if (this.closed) break;
      if (!force && !(await this.due(feed))) continue;
      const lock = this.keys.lock(feed.name);
      const token = `${process.pid}-${Date.now()}-${Math.random()}`;
      if ((await this.redis.client.set(lock, token, 'EX', LOCK_SECONDS, 'NX')) !== 'OK') continue;
      try {
        if (await this.load(feed)) loaded = true;
        done.push(feed.name);
      } finally {
        if ((await this.redis.client.get(lock)) === token) await this.redis.client.del(lock);
      }
    }
    if (loaded && !this.closed) await this.rescan.scanFeeds();
    return done;
  }

  private async due(feed: ThreatFeedSource): Promise<boolean> {
    const state = await this.state(feed.name);
    const last = state?.attemptedAt ? Date.parse(state.attemptedAt) : 0;
    return Date.now() - last >= this.everyMs;
  }

  private async state(name: string): Promise<ThreatFeedState | null> {
    const raw = await this.redis.client.hget(this.keys.state, name);
    try {
      return raw ? (JSON.parse(raw) as ThreatFeedState) : null;
    } catch {
      return null;
    }
  }

  /**
   * One feed: loaded and swapped in (true), or its error recorded (the live set is left as it
   * was; false).
   */
  async load(feed: ThreatFeedSource): Promise<boolean> {
    const previous = await this.state(feed.name);
    const attemptedAt = new Date().toISOString();
    const next = this.keys.next(feed.name);
    const client = this.redis.client;
    const started = Date.now();
    try {
      const text = await readSource(feed.source);
      const format = detectFeedFormat(text);
      await client.unlink(next);
      const write = async (entries: FeedEntry[]) => {
        const args: string[] = [];
        for (const e of entries) args.push(`${e.kind === 'host' ? 'h' : 'u'}:${e.key}`, e.type);
        await client.hset(next, ...args);
        await client.expire(next, NEXT_TTL_SECONDS);
        // other jobs' callbacks run between two batches
        await new Promise((resolve) => setImmediate(resolve));
      };
      const counts = await parseFeed(text, format, write);
      if (!counts.entries)
        throw new Error(`no entry understood (${counts.skipped} lines skipped; format ${format})`);
      const live = this.keys.live(feed.name);
      // one slot ({tf:<name>}): the old set goes (freed in the background) as the new one comes
      await client.multi().unlink(live).rename(next, live).persist(live).exec();
      const entries = await client.hlen(live);
      const state: ThreatFeedState = {
        format,
        entries,
        skipped: counts.skipped,
        loadedAt: new Date().toISOString(),
        attemptedAt,
        error: null,
      };
      await client.hset(this.keys.state, feed.name, JSON.stringify(state));
      this.logger.log(
        `threat feed ${feed.name}: ${entries} entries (${format}) in ${Date.now() - started} ms`,
      );
      return true;
    } catch (err) {
      await client.unlink(next).catch(() => undefined);
      const message = describe(err).slice(0, 300);
      const state: ThreatFeedState = {
        format: previous?.format ?? null,
        entries: previous?.entries ?? 0,
        skipped: previous?.skipped ?? 0,
        loadedAt: previous?.loadedAt ?? null,
        attemptedAt,
        error: message,
      };
      await client.hset(this.keys.state, feed.name, JSON.stringify(state)).catch(() => undefined);
      this.logger.warn(`threat feed ${feed.name} not loaded (previous set kept): ${message}`);
      return false;
    }
  }
}
