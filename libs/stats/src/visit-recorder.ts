import { createHash } from 'node:crypto';

import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { LRUCache } from 'lru-cache';
import { ChainableCommander } from 'ioredis';
import { DataSource } from 'typeorm';

import { AppConfig } from '@app/config';
import { RedisService } from '@app/redis';

import { DIM, dayKey, monthKey, StatsKeys } from './keys';
import { VisitInput } from './types';
import { dimensions, isCountable } from './visit-classifier';

/**
 * One atomic round trip per counted visit. KEYS: cap, pending, visitors HLL, dirty set.
 * ARGV: cap (0 = none), link id, cap ttl, HLL ttl, visitor digest, fields to increment...
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
 * Adds one flush's aggregated visits of a link and day. KEYS: pending, visitors HLL, dirty set.
 * ARGV: link id, HLL ttl, number of field pairs, field, increment, ..., visitor digests...
 */
const RECORD_BATCH = `
local n = tonumber(ARGV[3])
for i = 0, n - 1 do redis.call('HINCRBY', KEYS[1], ARGV[4 + i * 2], ARGV[5 + i * 2]) end
local first = 4 + n * 2
while first <= #ARGV do
  local last = math.min(first + 999, #ARGV)
  redis.call('PFADD', KEYS[2], unpack(ARGV, first, last))
  first = last + 1
end
redis.call('EXPIRE', KEYS[2], ARGV[2])
redis.call('SADD', KEYS[3], ARGV[1])
return 1`;

/** How long visits of uncapped owners are aggregated in memory before one write per link. */
const FLUSH_MS = 200;
/** A flush also starts once this many visits are waiting. */
const FLUSH_AT = 20_000;
/** Links per pipeline within a flush; the event loop (and Redis) serve requests in between. */
const FLUSH_CHUNK = 250;

/** One link's visits of one day, aggregated between two flushes. */
interface LinkDayBatch {
  linkId: number;
  day: string;
  clicks: number;
  counts: Map<string, number>;
  digests: Set<string>;
}

const CAP_TTL_SECONDS = 40 * 24 * 3600;
const HLL_TTL_SECONDS = 3 * 24 * 3600;
const CAP_CACHE_MS = 60_000;

type RecordingPipeline = {
  recordVisit(...args: Array<string | number>): unknown;
  recordVisitBatch(...args: Array<string | number>): unknown;
};

/**
 * Records visits in Redis without slowing the redirect; callers fire and forget after the
 * response. Bots, preview fetchers and HEAD requests are not counted.
 *
 * Two paths:
 * - owners without a monthly `clicks` cap (the bulk of traffic): visits are aggregated in memory
 *   per link and day and written every 200 ms, one Lua call per link in one pipeline. A process
 *   that dies without SIGTERM loses at most that window; SIGTERM flushes it.
 * - owners with a cap (and any visit whose owner's cap is not cached yet): one Lua call per
 *   visit that checks and counts the cap atomically, so the cap holds across replicas. Past it,
 *   visits are not counted (the redirect still happens).
 */
@Injectable()
export class VisitRecorder implements OnApplicationShutdown {
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

  private batches = new Map<string, LinkDayBatch>();
  private readonly digests = new LRUCache<string, string>({ max: 50_000 });
  private digestDay = '';
  private batched = 0;
  private timer: NodeJS.Timeout | null = null;

  /** Fire and forget: never throws, never awaited on the request path. */
  record(visit: VisitInput): void {
    if (!isCountable(visit.method, visit.userAgent)) return;
    if (this.caps.get(visit.userId) === 0) this.aggregate(visit, new Date());
    else if (this.queue.push(visit) === 1) setImmediate(this.flushExact);
  }

  /** Writes the aggregated visits now (also on shutdown). */
  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const batches = [...this.batches.values()];
    this.batches = new Map();
    this.batched = 0;
    if (!batches.length) return;
    if (!this.redis.ready) {
      this.logger.warn(`Redis unavailable: ${batches.length} links' visits not recorded`);
      return;
    }
    this.defineOnce();
    let failed = 0;
    let reason = '';
    for (let start = 0; start < batches.length; start += FLUSH_CHUNK) {
      if (start) await new Promise((resolve) => setImmediate(resolve));
      const pipeline = this.redis.client.pipeline() as ChainableCommander & RecordingPipeline;
      for (const b of batches.slice(start, start + FLUSH_CHUNK)) {
        const pairs: Array<string | number> = [`${b.day}|${DIM.clicks}`, b.clicks, `${b.day}|${DIM.uniques}`, 1];
        for (const [field, n] of b.counts) pairs.push(`${b.day}|${field}`, n);
        pipeline.recordVisitBatch(
          this.keys.pending(b.linkId),
          this.keys.visitors(b.linkId, b.day),
          this.keys.dirty,
          b.linkId,
          HLL_TTL_SECONDS,
          pairs.length / 2,
          ...pairs,
          ...b.digests,
        );
      }
      for (const [err] of (await pipeline.exec()) ?? []) {
        if (err) {
          failed += 1;
          reason = err.message;
        }
      }
    }
    if (failed) this.logger.warn(`${failed} of ${batches.length} links' visits not recorded: ${reason}`);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.flush().catch((err: Error) =>
      this.logger.warn(`final flush failed: ${err.message}`),
    );
  }

  private aggregate(visit: VisitInput, now: Date): void {
    const day = dayKey(now);
    const key = `${visit.linkId}|${day}`;
    let b = this.batches.get(key);
    if (!b) {
      b = { linkId: visit.linkId, day, clicks: 0, counts: new Map(), digests: new Set() };
      this.batches.set(key, b);
    }
    const dims = dimensions(visit.ip, visit.userAgent, visit.referer);
    b.clicks += 1;
    bump(b.counts, `${DIM.country}|${dims.country}`);
    bump(b.counts, `${DIM.referrer}|${dims.referrer}`);
    bump(b.counts, `${DIM.browser}|${dims.browser}`);
    bump(b.counts, `${DIM.os}|${dims.os}`);
    if (dims.social) bump(b.counts, `${DIM.social}|${dims.social}`);
    b.digests.add(this.visitorDigest(visit, day));
    this.batched += 1;
    if (this.batched >= FLUSH_AT) void this.flushQuietly();
    else if (!this.timer) this.timer = setTimeout(() => void this.flushQuietly(), FLUSH_MS).unref();
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
      const dims = dimensions(visit.ip, visit.userAgent, visit.referer);
      const fields = [
        `${day}|${DIM.clicks}`,
        `${day}|${DIM.uniques}`,
        `${day}|${DIM.country}|${dims.country}`,
        `${day}|${DIM.referrer}|${dims.referrer}`,
        `${day}|${DIM.browser}|${dims.browser}`,
        `${day}|${DIM.os}|${dims.os}`,
      ];
      if (dims.social) fields.push(`${day}|${DIM.social}|${dims.social}`);
      pipeline.recordVisit(
        this.keys.cap(visit.userId, month),
        this.keys.pending(visit.linkId),
        this.keys.visitors(visit.linkId, day),
        this.keys.dirty,
        caps[i],
        visit.linkId,
        CAP_TTL_SECONDS,
        HLL_TTL_SECONDS,
        this.visitorDigest(visit, day),
        ...fields,
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
   * Daily-salted digest of IP and user agent: unique per visitor per day, and no raw IP kept in
   * Redis or Postgres. Memoised for the day (returning visitors are common), in memory only.
   */
  private visitorDigest(visit: VisitInput, day: string): string {
    if (day !== this.digestDay) {
      this.digests.clear();
      this.digestDay = day;
    }
    const key = `${visit.ip}\u0000${visit.userAgent ?? ''}`;
    let digest = this.digests.get(key);
    if (!digest) {
      digest = createHash('sha256')
        .update(`${this.config.secret}|${day}|${visit.ip}|${visit.userAgent ?? ''}`)
        .digest('base64url')
        .slice(0, 22);
      this.digests.set(key, digest);
    }
    return digest;
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
      this.redis.client.defineCommand('recordVisitBatch', { numberOfKeys: 3, lua: RECORD_BATCH });
      this.defined = true;
    }
  }
}

function bump(counts: Map<string, number>, field: string): void {
  counts.set(field, (counts.get(field) ?? 0) + 1);
}
