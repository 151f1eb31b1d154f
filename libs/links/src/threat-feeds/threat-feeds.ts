import { basename, extname } from 'node:path';

import { Injectable, Logger } from '@nestjs/common';

import { AppConfig } from '@app/config';
import { isCluster, RedisService } from '@app/redis';

import { DestinationSpellings } from '../blocklist-matcher';

import { FeedFormat, lookupFields } from './feed-format';

/** A feed named in THREAT_FEEDS. */
export interface ThreatFeedSource {
  /** What refusals name (`flagged as phishing by <name>`). */
  name: string;
  /** A file path or an http(s) URL. */
  source: string;
}

/** What the worker records of a feed's loads (one JSON value per feed, in Redis). */
export interface ThreatFeedState {
  format: FeedFormat | null;
  entries: number;
  skipped: number;
  /** ISO time of the last load that succeeded (null: none yet). */
  loadedAt: string | null;
  /** ISO time of the last attempt, successful or not. */
  attemptedAt: string | null;
  /** The last attempt's failure (null when it succeeded). */
  error: string | null;
}

/** A feed's answer for a destination. */
export interface ThreatFlag {
  source: string;
  type: string;
}

const NAME = /^[a-z0-9][a-z0-9._-]{0,39}$/;

/**
 * THREAT_FEEDS read: each item a file path or an http(s) URL, optionally `name=` before it (a
 * name of letters, digits, `.`, `_`, `-`); unnamed, a file is named by its base name without
 * extension and a URL by its host (without `www.`). A name used twice gets `-2`, `-3`, …
 */
export function parseThreatFeeds(items: string[]): ThreatFeedSource[] {
  const feeds: ThreatFeedSource[] = [];
  for (const raw of items) {
    const item = raw.trim();
    if (!item) continue;
    const named = /^([a-z0-9][a-z0-9._-]{0,39})=(.+)$/i.exec(item);
    let name: string;
    let source: string;
    if (named && !named[1].includes(':')) {
      name = named[1].toLowerCase();
      source = named[2].trim();
    } else {
      source = item;
      if (/^https?:\/\//i.test(item)) {
        try {
          name = new URL(item).hostname.toLowerCase().replace(/^www\./, '');
        } catch {
          name = 'feed';
        }
      } else name = basename(item, extname(item)).toLowerCase();
      name = name.replace(/[^a-z0-9._-]/g, '-').slice(0, 40) || 'feed';
      if (!NAME.test(name)) name = `feed-${name}`.slice(0, 40);
    }
    let unique = name;
    for (let n = 2; feeds.some((f) => f.name === unique); n++) unique = `${name}-${n}`;
    feeds.push({ name: unique, source });
  }
  return feeds;
}

/**
 * Where the feeds live in Redis, shared by the worker that loads them and every api replica that
 * reads them. Each feed's entries are one hash (`h:<host>` / `u:<url key>` → type) under a hash
 * tag of its own, `{tf:<name>}` (a feed's keys share a slot, feeds spread over a cluster): the
 * worker fills `…:next` in batches, then swaps it for `…:live` in one MULTI (UNLINK, RENAME), so
 * readers see the old set or the new one, never a half-loaded or empty one.
 */
export class ThreatFeedKeys {
  constructor(private readonly redis: RedisService) {}
  live(name: string): string {
    return this.redis.slotKey(['tf', name], 'live');
  }
  next(name: string): string {
    return this.redis.slotKey(['tf', name], 'next');
  }
  lock(name: string): string {
    return this.redis.slotKey(['tf', name], 'lock');
  }
  /** One hash for every feed's ThreatFeedState (name → JSON). */
  get state(): string {
    return this.redis.key('tf', 'state');
  }
}

/** A destination to match: its URL, or its destinationSpellings when the caller has them. */
export type FeedQuery = string | DestinationSpellings;

/**
 * The api's (and the import worker's) side of the threat feeds: is a destination flagged? Every
 * destination of a request is looked up at once by its lookup fields (lookupFields: its hosts and
 * their parent domains, its exact URL), in one round trip: one HMGET of every field per feed,
 * the feeds' HMGETs in one pipeline (on a Redis Cluster each feed's hash has a slot of its own,
 * so there they go out side by side, one per feed). While Redis is unreachable the answer is
 * "not flagged" (logged): the feeds never block creation on their own failure.
 */
@Injectable()
export class ThreatFeeds {
  private readonly logger = new Logger(ThreatFeeds.name);
  readonly feeds: ThreatFeedSource[];
  readonly keys: ThreatFeedKeys;
  /** Each feed's live hash, in THREAT_FEEDS order. */
  private readonly liveKeys: string[];
  /** The lookups of the current turn of the event loop, not sent yet. */
  private turn?: TurnLookup;
  private warnedAt = 0;

  constructor(
    private readonly redis: RedisService,
    config: AppConfig,
  ) {
    this.feeds = parseThreatFeeds(config.THREAT_FEEDS);
    this.keys = new ThreatFeedKeys(redis);
    this.liveKeys = this.feeds.map((f) => this.keys.live(f.name));
  }

  /** Whether any feed is configured (without, every destination is unflagged at no cost). */
  get enabled(): boolean {
    return this.feeds.length > 0;
  }

  /** The first feed (in THREAT_FEEDS order) that flags `url`, or null. */
  async match(url: FeedQuery): Promise<ThreatFlag | null> {
    if (!this.feeds.length) return null;
    return (await this.matchEach([url]))[0];
  }

  /**
   * `match` for each of a request's destinations: the answer at each one's index (null: not
   * flagged, or Redis unreachable: logged). The lookups of one turn of the event loop (concurrent
   * requests) go out together at its end, as BatchedGet does for GETs: one HMGET per feed of
   * every field they name, so under load a creation costs a share of one round trip.
   */
  matchEach(destinations: FeedQuery[]): Promise<Array<ThreatFlag | null>> {
    if (!this.feeds.length || !destinations.length)
      return Promise.resolve(destinations.map(() => null));
    let turn = this.turn;
    if (!turn) {
      turn = this.turn = new TurnLookup();
      setImmediate(() => void this.send(turn!));
    }
    const answer = turn.add(destinations);
    if (turn.lookup.fields.length >= MAX_TURN_FIELDS) void this.send(turn);
    return answer;
  }

  /** Sends a turn's lookups (once) and answers each request's share. */
  private async send(turn: TurnLookup): Promise<void> {
    if (this.turn === turn) this.turn = undefined;
    if (turn.sent) return;
    turn.sent = true;
    let flags: Array<ThreatFlag | null> = [];
    try {
      if (turn.lookup.fields.length)
        flags = turn.lookup.flags(this.feeds, await this.read(turn.lookup.fields));
    } catch (err) {
      if (Date.now() - this.warnedAt > 60_000) {
        this.warnedAt = Date.now();
        this.logger.warn(`threat feeds not checked (Redis): ${(err as Error).message}`);
      }
    }
    turn.answer(flags);
  }

  /**
   * `match` for many destinations at once (the worker's re-scan): one HMGET per feed with every
   * destination's lookup fields, so a batch of links costs one round trip (on a Redis Cluster,
   * one per feed, side by side). Answers the flagged ones (first feed in THREAT_FEEDS order, as
   * `match`). Unlike `match`, a Redis failure is thrown: a re-scan that cannot read the feeds
   * did not happen.
   */
  async matchMany(urls: Iterable<string>): Promise<Map<string, ThreatFlag>> {
    const flagged = new Map<string, ThreatFlag>();
    if (!this.feeds.length) return flagged;
    const unique = [...new Set(urls)];
    const lookup = new Lookup(unique);
    if (!lookup.fields.length) return flagged;
    const flags = lookup.flags(this.feeds, await this.read(lookup.fields));
    flags.forEach((flag, i) => {
      if (flag) flagged.set(unique[i], flag);
    });
    return flagged;
  }

  /** Each feed's answers for `fields` (HMGET), in one round trip. */
  private async read(fields: string[]): Promise<Array<Array<string | null>>> {
    const { client } = this.redis;
    if (this.liveKeys.length === 1) return [await client.hmget(this.liveKeys[0], ...fields)];
    if (isCluster(client))
      return Promise.all(this.liveKeys.map((key) => client.hmget(key, ...fields)));
    const pipeline = client.pipeline();
    for (const key of this.liveKeys) pipeline.hmget(key, ...fields);
    const results = (await pipeline.exec()) ?? [];
    return results.map(([err, value]) => {
      if (err) throw err;
      return value as Array<string | null>;
    });
  }

  /** Every configured feed with its recorded state (null fields: never attempted yet). */
  async states(): Promise<Array<ThreatFeedSource & ThreatFeedState>> {
    if (!this.feeds.length) return [];
    const raw = await this.redis.client.hmget(this.keys.state, ...this.feeds.map((f) => f.name));
    return this.feeds.map((f, i) => {
      let state: Partial<ThreatFeedState> = {};
      try {
        state = raw[i] ? (JSON.parse(raw[i] as string) as ThreatFeedState) : {};
      } catch {
        state = {};
      }
      return {
        name: f.name,
        source: f.source,
        format: state.format ?? null,
        entries: state.entries ?? 0,
        skipped: state.skipped ?? 0,
        loadedAt: state.loadedAt ?? null,
        attemptedAt: state.attemptedAt ?? null,
        error: state.error ?? null,
      };
    });
  }
}

/** Fields of one turn's lookups at most: more are sent at once, the rest go in another HMGET. */
const MAX_TURN_FIELDS = 2000;

/** The lookup fields of a set of destinations: each field once, each destination's by index. */
class Lookup {
  readonly fields: string[] = [];
  /** Each destination's fields, as indexes into `fields`, in lookupFields order. */
  private readonly own: number[][] = [];
  private readonly index = new Map<string, number>();

  constructor(destinations: FeedQuery[] = []) {
    this.add(destinations);
  }

  /** Adds destinations after those already there (their answers follow in `flags`). */
  add(destinations: FeedQuery[]): void {
    const index = this.index;
    for (const d of destinations) {
      const own: number[] = [];
      const fields = typeof d === 'string' ? lookupFields(d) : lookupFields('', d);
      for (const f of fields) {
        let i = index.get(f);
        if (i === undefined) {
          i = this.fields.push(f) - 1;
          index.set(f, i);
        }
        own.push(i);
      }
      this.own.push(own);
    }
  }

  /** Each destination's flag: the first feed (in order) with an answer for one of its fields. */
  flags(feeds: ThreatFeedSource[], answers: Array<Array<string | null>>): Array<ThreatFlag | null> {
    return this.own.map((own) => {
      for (let i = 0; i < answers.length; i++)
        for (const f of own) {
          const type = answers[i][f];
          if (type) return { source: feeds[i].name, type };
        }
      return null;
    });
  }
}

/** The lookups of one turn: every request's destinations in one Lookup, each its own share. */
class TurnLookup {
  readonly lookup = new Lookup();
  sent = false;
  private readonly waiting: Array<{
    start: number;
    count: number;
    resolve: (flags: Array<ThreatFlag | null>) => void;
  }> = [];
  private size = 0;

  add(destinations: FeedQuery[]): Promise<Array<ThreatFlag | null>> {
    this.lookup.add(destinations);
    const start = this.size;
    this.size += destinations.length;
    return new Promise((resolve) =>
      this.waiting.push({ start, count: destinations.length, resolve }),
    );
  }

  /** Each request its share of `flags` (missing ones: not flagged). */
  answer(flags: Array<ThreatFlag | null>): void {
    for (const w of this.waiting) {
      const own: Array<ThreatFlag | null> = [];
      for (let i = w.start; i < w.start + w.count; i++) own.push(flags[i] ?? null);
      w.resolve(own);
    }
  }
}
