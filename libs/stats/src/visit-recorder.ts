import { Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { LRUCache } from 'lru-cache';
import Redis, { ChainableCommander } from 'ioredis';
import { DataSource } from 'typeorm';

import { sha256 } from '@app/common';
import { AppConfig } from '@app/config';
import { RedisService } from '@app/redis';

import { dayKey, HLL_TTL_SECONDS, monthKey, profileField, StatsKeys } from './keys';
import { VisitInput } from './types';
import { dimensions, isCountable } from './visit-classifier';

/**
 * One atomic round trip per counted visit. KEYS: cap, pending, visitors HLL, dirty set.
 * ARGV: cap (0 = none), link id, cap ttl, HLL ttl, visitor digest, fields to increment (the
 * visit's profile field)...
 * Returns 0 when the owner's monthly cap is reached (the visit is not counted), else 1.
 */
const RECORD = `
local cap = tonumber(ARGV[1])
if cap > 0 and tonumber(redis.call('GET', KEYS[1]) or '0') >= cap then return 0 end
redis.call('INCR', KEYS[1])
redis.call('EXPIRE', KEYS[1], ARGV[3])
for i = 6, #ARGV do redis.call('HINCRBY', KEYS[2], ARGV[i], 1) end
redis.call('PFADD', KEYS[3], ARGV[5])
redis.call('EXPIRE', KEYS[3], ARGV[4])
redis.call('SADD', KEYS[4], ARGV[2])
return 1`;

/**
 * Adds one flush chunk's aggregated visits (many links and days) in a single call.
 * KEYS[1]: the dirty set. ARGV[1]: the stats key base (`StatsKeys.base`); ARGV[2]: JSON array
 * of entries `[link id, day, [field, ...], [increment, ...], [visitor digest, ...]]`. One JSON
 * argument, rather than thousands, keeps the api's share small: serialising many arguments
 * costs the redirecting process several times what Redis spends running this. Pending hash and HLL keys
 * are built here from the base (like the fold's claim script: one Redis primary, not a cluster).
 * The HLLs' expiry is the fold's business (it reads every one written here), which keeps this
 * script to two calls per link-day. Returns the number of entries.
 */
const RECORD_CHUNK = `
local base = ARGV[1]
local ids = {}
for _, e in ipairs(cjson.decode(ARGV[2])) do
  local id = e[1]
  ids[#ids + 1] = id
  local pending = base .. ':p:' .. id
  local fields, counts = e[3], e[4]
  for j = 1, #fields do redis.call('HINCRBY', pending, fields[j], counts[j]) end
  local digests = e[5]
  local hll = base .. ':u:' .. id .. ':' .. e[2]
  for first = 1, #digests, 1000 do
    redis.call('PFADD', hll, unpack(digests, first, math.min(first + 999, #digests)))
  end
end
if #ids > 0 then redis.call('SADD', KEYS[1], unpack(ids)) end
return #ids`;

/** A flush also starts once this many visits are waiting. */
const FLUSH_AT = 20_000;
/**
 * Visits aggregated per turn of the event loop during a flush (under half a millisecond): a
 * flush never holds up requests by more than one of these or one turn of chunks.
 */
const SLICE = 500;
/** Chunks serialised and written per turn of the event loop during a flush (one pipeline). */
const CHUNKS_PER_TURN = 2;
/**
 * Link-days per Redis call within a flush. The call is atomic, so this bounds how long it holds
 * Redis (about 0.2 ms); Redis serves other connections, the redirects' reads among them,
 * between the calls.
 */
const FLUSH_CHUNK = 50;

/** Distinct values a link-day keeps in plain arrays before it indexes them. */
const SMALL = 16;

/**
 * One link's visits of one day between two flushes: visits per profile field (see
 * `profileField`) and the distinct visitor digests. In a flush interval a link-day rarely sees
 * more than a few of either, so they live in exact-size arrays searched linearly (a fraction of
 * the garbage of a Map and a Set per link-day), indexed only once a busy link outgrows that.
 */
class LinkDay {
  readonly fields: string[];
  readonly counts: number[];
  readonly digests: string[];
  private fieldIndex?: Map<string, number>;
  private digestIndex?: Set<string>;

  constructor(
    readonly linkId: number,
    readonly day: string,
    field: string,
    digest: string,
  ) {
    this.fields = [field];
    this.counts = [1];
    this.digests = [digest];
  }

  add(field: string, digest: string): void {
    let i = this.fieldIndex ? (this.fieldIndex.get(field) ?? -1) : this.fields.indexOf(field);
    if (i < 0) {
      i = this.fields.push(field) - 1;
      this.counts.push(0);
      if (this.fieldIndex) this.fieldIndex.set(field, i);
      else if (i === SMALL) this.fieldIndex = new Map(this.fields.map((f, k) => [f, k]));
    }
    this.counts[i] += 1;
    if (this.digestIndex ? this.digestIndex.has(digest) : this.digests.includes(digest)) return;
    this.digests.push(digest);
    if (this.digestIndex) this.digestIndex.add(digest);
    else if (this.digests.length > SMALL) this.digestIndex = new Set(this.digests);
  }

  /** The chunk script's entry: `[link id, day, [field, ...], [increment, ...], [digest, ...]]`. */
  toJSON(): [string, string, string[], number[], string[]] {
    return [String(this.linkId), this.day, this.fields, this.counts, this.digests];
  }
}

/**
 * What the recorder remembers of a visitor (by IP) for the day: the digest and the profile field
 * of their last visit. Returning visitors, the common case, then cost one map lookup.
 */
interface Visitor {
  readonly day: string;
  readonly userAgent: string;
  readonly digest: string;
  readonly referer: string | undefined;
  readonly field: string;
}

/**
 * Visits of uncapped owners since the last flush, column by column: the link id and the
 * visitor's memoised day, profile field and digest (references to strings the visitor memo holds
 * anyway). The columns keep their capacity from flush to flush, so holding a flush interval of
 * visits allocates nothing per visit. Measured: keeping each request's own objects that long
 * (long enough to be promoted out of the young generation) cost more garbage collection than
 * the recording itself.
 */
class VisitLog {
  private held = 0;
  get length(): number {
    return this.held;
  }
  private links = new Int32Array(1024);
  private readonly visitors: Visitor[] = [];

  /** Appends a visit; returns the number held. */
  push(linkId: number, visitor: Visitor): number {
    if (this.held === this.links.length) {
      const grown = new Int32Array(this.links.length * 2);
      grown.set(this.links);
      this.links = grown;
    }
    this.links[this.held] = linkId;
    this.visitors[this.held] = visitor;
    return ++this.held;
  }

  /** Empties the log, keeping its capacity but no visitor the memo has since let go. */
  clear(): void {
    this.visitors.fill(undefined as unknown as Visitor, 0, this.held);
    this.held = 0;
  }

  linkAt(i: number): number {
    return this.links[i];
  }
  visitorAt(i: number): Visitor {
    return this.visitors[i];
  }
}

const CAP_TTL_SECONDS = 40 * 24 * 3600;
const CAP_CACHE_MS = 60_000;

type RecordingPipeline = {
  recordVisit(...args: Array<string | number>): unknown;
  recordVisitChunk(...args: Array<string | number>): unknown;
};

/**
 * Records visits in Redis without slowing the redirect; callers fire and forget after the
 * response. Bots, preview fetchers and HEAD requests are not counted.
 *
 * Two paths:
 * - owners without a monthly `clicks` cap (the bulk of traffic): visits are aggregated in memory
 *   per link and day and written every STATS_FLUSH_MS (500 ms), one Lua call per 50 link-days.
 *   A process that dies without SIGTERM loses at most that window; SIGTERM flushes it.
 * - owners with a cap (and any visit whose owner's cap is not cached yet): one Lua call per
 *   visit that checks and counts the cap atomically, so the cap holds across replicas. Past it,
 *   visits are not counted (the redirect still happens).
 */
@Injectable()
export class VisitRecorder implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(VisitRecorder.name);
  private readonly keys: StatsKeys;
  private readonly caps = new LRUCache<number, number>({ max: 50_000, ttl: CAP_CACHE_MS });
  private defined = false;
  /** Visits of this tick, recorded together on the next (their Redis calls share one write). */
  private queue: VisitInput[] = [];

  constructor(
    private readonly redis: RedisService,
    private readonly config: AppConfig,
    @InjectDataSource() private readonly db: DataSource,
  ) {
    this.keys = new StatsKeys(redis);
  }

  /** Visits since the last flush; `spare` is the log a running flush reads. */
  private log = new VisitLog();
  private spare = new VisitLog();
  private flushing: Promise<void> = Promise.resolve();
  private readonly visitors = new LRUCache<string, Visitor>({ max: 50_000 });
  private timer: NodeJS.Timeout | null = null;
  /**
   * The connection flushes write on. A flush pipeline holds its connection for a few hundred
   * microseconds per chunk; on a connection of its own it never queues ahead of the redirect's
   * cache reads (Redis serves other connections between the chunks).
   */
  private writer?: Redis;

  onModuleInit(): void {
    this.writer = this.redis.duplicate();
    this.writer.defineCommand('recordVisitChunk', { numberOfKeys: 1, lua: RECORD_CHUNK });
  }

  /** Fire and forget: never throws, never awaited on the request path. */
  record(visit: VisitInput): void {
    if (!isCountable(visit.method, visit.userAgent)) return;
    if (this.caps.get(visit.userId) === 0) {
      const n = this.log.push(visit.linkId, this.visitor(visit, dayKey(Date.now())));
      if (n === FLUSH_AT) void this.flushQuietly();
      else if (!this.timer)
        this.timer = setTimeout(() => void this.flushQuietly(), this.config.STATS_FLUSH_MS).unref();
    } else if (this.queue.push(visit) === 1) {
      setImmediate(this.flushExact);
    }
  }

  /**
   * Writes the logged visits now (also on shutdown). Flushes run one at a time: one asked for
   * while another runs waits for it, then writes what was logged meanwhile.
   */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const run = this.flushing.then(() => this.flushOnce());
    this.flushing = run.catch(() => undefined);
    return run;
  }

  /**
   * Takes the log (the spare one takes new visits meanwhile), aggregates it per link and day and
   * writes it, in slices of SLICE visits and chunks with a turn of the event loop between them,
   * so requests never wait behind more than a slice (a 500 ms log at 20 000 visits/s would
   * otherwise hold the loop ~10 ms). Redis replies are awaited only at the end; the link-days
   * are garbage within a few milliseconds (kept across round trips, they outlived
   * young-generation GCs and cost more than the rest of recording).
   */
  private async flushOnce(): Promise<void> {
    const log = this.log;
    if (!log.length) return;
    this.log = this.spare;
    this.spare = log;
    const held = log.length;
    try {
      const writer = this.writer?.status === 'ready' ? this.writer : undefined;
      if (!writer) {
        this.logger.warn(`Redis unavailable: ${held} visits not recorded`);
        return;
      }
      const batches: LinkDay[] = [];
      // per day (one, except across midnight), per link
      const byDay = new Map<string, Map<number, LinkDay>>();
      for (let start = 0; start < held; start += SLICE) {
        if (start) await nextTurn();
        aggregate(log, start, Math.min(start + SLICE, held), byDay, batches);
      }
      const sent: Array<Promise<void>> = [];
      let failed = 0;
      let reason = '';
      const perTurn = FLUSH_CHUNK * CHUNKS_PER_TURN;
      for (let start = 0; start < batches.length; start += perTurn) {
        if (start) await nextTurn();
        const pipeline = writer.pipeline() as ChainableCommander & RecordingPipeline;
        const sizes: number[] = [];
        const end = Math.min(start + perTurn, batches.length);
        for (let from = start; from < end; from += FLUSH_CHUNK) {
          const chunk = batches.slice(from, Math.min(from + FLUSH_CHUNK, end));
          pipeline.recordVisitChunk(this.keys.dirty, this.keys.base, JSON.stringify(chunk));
          sizes.push(chunk.length);
        }
        sent.push(
          pipeline.exec().then((replies) =>
            (replies ?? []).forEach(([err], i) => {
              if (err) {
                failed += sizes[i];
                reason = err.message;
              }
            }),
          ),
        );
      }
      await Promise.all(sent);
      if (failed)
        this.logger.warn(`${failed} of ${batches.length} links' visits not recorded: ${reason}`);
    } finally {
      log.clear();
    }
  }

  async onApplicationShutdown(): Promise<void> {
    await this.flush().catch((err: Error) =>
      this.logger.warn(`final flush failed: ${err.message}`),
    );
  }

  private flushQuietly(): Promise<void> {
    return this.flush().catch((err: Error) =>
      this.logger.warn(`visits not recorded: ${err.message}`),
    );
  }

  private readonly flushExact = (): void => {
    const visits = this.queue;
    this.queue = [];
    this.recordMany(visits).catch((err: Error) =>
      this.logger.warn(`${visits.length} visits not recorded: ${err.message}`),
    );
  };

  /** Records a countable visit and resolves once Redis has it (false: not counted). For tests and callers that need to wait. */
  async recordNow(visit: VisitInput, now = new Date()): Promise<boolean> {
    const [counted] = await this.recordMany([visit], now);
    return counted ?? false;
  }

  /**
   * Records the countable visits among `visits` in one pipeline: one write and one round trip
   * to Redis however many there are. Resolves with whether each was counted.
   */
  private async recordMany(visits: VisitInput[], now = new Date()): Promise<boolean[]> {
    if (!this.redis.ready) return visits.map(() => false);
    const day = dayKey(now);
    const month = monthKey(now);
    const countable = visits.map((v) => isCountable(v.method, v.userAgent));
    const caps = await Promise.all(
      visits.map((v, i) => (countable[i] ? this.capFor(v.userId) : 0)),
    );
    this.defineOnce();
    const pipeline = this.redis.client.pipeline() as ChainableCommander & RecordingPipeline;
    visits.forEach((visit, i) => {
      if (!countable[i]) return;
      const v = this.visitor(visit, day);
      pipeline.recordVisit(
        this.keys.cap(visit.userId, month),
        this.keys.pending(visit.linkId),
        this.keys.visitors(visit.linkId, day),
        this.keys.dirty,
        caps[i],
        visit.linkId,
        CAP_TTL_SECONDS,
        HLL_TTL_SECONDS,
        v.digest,
        v.field,
      );
    });
    const replies = countable.some(Boolean) ? ((await pipeline.exec()) ?? []) : [];
    let r = 0;
    return countable.map((c) => {
      if (!c) return false;
      const [err, value] = replies[r++] ?? [null, 0];
      return !err && value === 1;
    });
  }

  /**
   * The visitor's daily-salted digest of IP and user agent (unique per visitor per day; no raw IP
   * reaches Redis or Postgres) and the profile field of this visit. Memoised per IP, in memory
   * only: a returning visitor with the same agent and referrer costs one lookup.
   */
  private visitor(visit: VisitInput, day: string): Visitor {
    const userAgent = visit.userAgent ?? '';
    let v = this.visitors.get(visit.ip);
    if (!v || v.day !== day || v.userAgent !== userAgent) {
      const digest = sha256(
        `${this.config.secret}|${day}|${visit.ip}|${userAgent}`,
        'base64url',
      ).slice(0, 22);
      v = { day, userAgent, digest, referer: visit.referer, field: this.field(visit, day) };
      this.visitors.set(visit.ip, v);
    } else if (v.referer !== visit.referer) {
      // a new object: the visit log holds the previous one for visits already logged
      v = { ...v, referer: visit.referer, field: this.field(visit, day) };
      this.visitors.set(visit.ip, v);
    }
    return v;
  }

  private field(visit: VisitInput, day: string): string {
    return profileField(day, dimensions(visit.ip, visit.userAgent, visit.referer));
  }

  /** The owner's monthly clicks cap (0 = unlimited; admins unlimited), cached for a minute. */
  private async capFor(userId: number): Promise<number> {
    const cached = this.caps.get(userId);
    if (cached !== undefined) return cached;
    let cap = 0;
    try {
      const [row] = await this.db.query(
        `SELECT u.is_admin, p.free, u.expires, (p.limits->>'clicks')::bigint AS clicks,
                (SELECT (f.limits->>'clicks')::bigint FROM plans f WHERE f.free ORDER BY f.id LIMIT 1) AS free_clicks
           FROM users u JOIN plans p ON p.id = u.plan_id WHERE u.id = $1`,
        [userId],
      );
      if (row && !row.is_admin) {
        const lapsed =
          !row.free && row.expires !== null && new Date(row.expires).getTime() <= Date.now();
        cap = Number((lapsed ? row.free_clicks : row.clicks) ?? 0);
      }
    } catch (err) {
      this.logger.warn(`clicks cap unknown, counting: ${(err as Error).message}`);
      return 0;
    }
    this.caps.set(userId, cap);
    return cap;
  }

  private defineOnce(): void {
    if (!this.defined) {
      this.redis.client.defineCommand('recordVisit', { numberOfKeys: 4, lua: RECORD });
      this.defined = true;
    }
  }
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Adds visits `from`..`to` of `log` to the link-days of `byDay` (new ones also to `out`). */
function aggregate(
  log: VisitLog,
  from: number,
  to: number,
  byDay: Map<string, Map<number, LinkDay>>,
  out: LinkDay[],
): void {
  for (let i = from; i < to; i++) {
    const linkId = log.linkAt(i);
    const v = log.visitorAt(i);
    let links = byDay.get(v.day);
    if (!links) byDay.set(v.day, (links = new Map()));
    const b = links.get(linkId);
    if (b) b.add(v.field, v.digest);
    else {
      const created = new LinkDay(linkId, v.day, v.field, v.digest);
      links.set(linkId, created);
      out.push(created);
    }
  }
}
