import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { LRUCache } from 'lru-cache';
import { DataSource } from 'typeorm';

import { QrType } from '@app/database';
import { RedisService } from '@app/redis';

import { QrData } from './qr-payload';

/** What the public `/q/<code>` handler needs to answer a scan. */
export interface ResolvedQr {
  qrId: number;
  linkId: number;
  userId: number;
  type: QrType;
  data: QrData;
}

/** Entries live this long in each process; another replica's change is seen at most this late. */
const LOCAL_TTL_MS = 5_000;
const REDIS_TTL_S = 600;

interface CachedQr extends ResolvedQr {
  /** The code's version when the row was read; an eviction bumps it, so a late write of old data is ignored. */
  v: string;
}

/**
 * Short code → QR code, for the public handler: in-process LRU → Redis → Postgres. Changes
 * (update, delete) evict both layers; Redis failures fall through to Postgres (fail open).
 *
 * A read that races a change cannot leave old data behind: every eviction bumps a per-code
 * version in Redis (and a generation in this process), and an entry written with an older
 * version is treated as a miss.
 */
@Injectable()
export class QrResolver {
  private readonly logger = new Logger(QrResolver.name);
  private readonly local = new LRUCache<string, ResolvedQr>({ max: 10_000, ttl: LOCAL_TTL_MS });
  private generation = 0;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly redis: RedisService,
  ) {}

  private keys(code: string): [entry: string, version: string] {
    return [this.redis.key('qr', 'code', code), this.redis.key('qr', 'code-version', code)];
  }

  async resolve(code: string): Promise<ResolvedQr | null> {
    const hit = this.local.get(code);
    if (hit) return hit;
    const generation = this.generation;
    const [entryKey, versionKey] = this.keys(code);
    let version: string | undefined;
    if (this.redis.ready) {
      try {
        const [cached, current] = await this.redis.client.mget(entryKey, versionKey);
        version = current ?? '0';
        if (cached) {
          const { v, ...value } = JSON.parse(cached) as CachedQr;
          if (v === version) {
            if (generation === this.generation) this.local.set(code, value);
            return value;
          }
        }
      } catch (err) {
        version = undefined;
        this.logger.warn(`qr cache read failed: ${(err as Error).message}`);
      }
    }
    const [row] = await this.db.query(
      `SELECT q.id AS qr_id, l.id AS link_id, l.user_id, q.type, q.data
         FROM links l JOIN qr_codes q ON q.link_id = l.id
        WHERE l.alias = $1 AND l.kind = 'qr'`,
      [code],
    );
    if (!row) return null;
    const value: ResolvedQr = {
      qrId: row.qr_id,
      linkId: row.link_id,
      userId: row.user_id,
      type: row.type,
      data: row.data,
    };
    if (generation === this.generation) this.local.set(code, value);
    if (version !== undefined) {
      const cached: CachedQr = { ...value, v: version };
      this.redis.client
        .set(entryKey, JSON.stringify(cached), 'EX', REDIS_TTL_S)
        .catch((err: Error) => {
          this.logger.warn(`qr cache write failed: ${err.message}`);
        });
    }
    return value;
  }

  /** Forgets a code in this process and in Redis (after an update or a delete has committed). */
  async evict(code: string): Promise<void> {
    this.generation += 1;
    this.local.delete(code);
    if (!this.redis.ready) return;
    const [entryKey, versionKey] = this.keys(code);
    await this.redis.client
      .multi()
      .incr(versionKey)
      .expire(versionKey, REDIS_TTL_S * 2)
      .del(entryKey)
      .exec()
      .catch((err: Error) => this.logger.warn(`qr cache eviction failed: ${err.message}`));
  }
}
