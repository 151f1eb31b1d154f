import { createHash } from 'node:crypto';

import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { LRUCache } from 'lru-cache';
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

const CAP_TTL_SECONDS = 40 * 24 * 3600;
const HLL_TTL_SECONDS = 3 * 24 * 3600;
const CAP_CACHE_MS = 60_000;

type RecordingRedis = { recordVisit(...args: Array<string | number>): Promise<number> };

/**
 * Records a visit in Redis without slowing the redirect: callers fire and forget after the
 * response; the work (classification, GeoIP, user-agent parsing) happens off the request path
 * and ends in one Lua round trip. Bots, preview fetchers and HEAD requests are not counted.
 * Past the owner's monthly `clicks` cap visits are not counted (the redirect still happens).
 */
@Injectable()
export class VisitRecorder {
  private readonly logger = new Logger(VisitRecorder.name);
  private readonly keys: StatsKeys;
  private readonly caps = new LRUCache<number, number>({ max: 50_000, ttl: CAP_CACHE_MS });
  private defined = false;

  constructor(
    private readonly redis: RedisService,
    private readonly config: AppConfig,
    @InjectDataSource() private readonly db: DataSource,
  ) {
    this.keys = new StatsKeys(redis);
  }

  /** Fire and forget: never throws, never awaited on the request path. */
  record(visit: VisitInput): void {
    if (!isCountable(visit.method, visit.userAgent)) return;
    setImmediate(() => {
      this.recordNow(visit).catch((err: Error) => this.logger.warn(`visit not recorded: ${err.message}`));
    });
  }

  /** Records a countable visit and resolves once Redis has it (false: not counted). For tests and callers that need to wait. */
  async recordNow(visit: VisitInput, now = new Date()): Promise<boolean> {
    if (!isCountable(visit.method, visit.userAgent)) return false;
    if (!this.redis.ready) return false;
    const cap = await this.capFor(visit.userId);
    const day = dayKey(now);
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
    const result = await this.client().recordVisit(
      this.keys.cap(visit.userId, monthKey(now)),
      this.keys.pending(visit.linkId),
      this.keys.visitors(visit.linkId, day),
      this.keys.dirty,
      cap,
      visit.linkId,
      CAP_TTL_SECONDS,
      HLL_TTL_SECONDS,
      this.visitorDigest(visit, day),
      ...fields,
    );
    return result === 1;
  }

  /** Daily-salted digest of IP and user agent: unique per visitor per day, and no raw IP kept. */
  private visitorDigest(visit: VisitInput, day: string): string {
    return createHash('sha256')
      .update(`${this.config.secret}|${day}|${visit.ip}|${visit.userAgent ?? ''}`)
      .digest('base64url')
      .slice(0, 22);
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
        const lapsed = !row.free && row.expires !== null && new Date(row.expires).getTime() <= Date.now();
        cap = Number((lapsed ? row.free_clicks : row.clicks) ?? 0);
      }
    } catch (err) {
      this.logger.warn(`clicks cap unknown, counting: ${(err as Error).message}`);
      return 0;
    }
    this.caps.set(userId, cap);
    return cap;
  }

  private client(): RecordingRedis {
    if (!this.defined) {
      this.redis.client.defineCommand('recordVisit', { numberOfKeys: 4, lua: RECORD });
      this.defined = true;
    }
    return this.redis.client as unknown as RecordingRedis;
  }
}
