import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';

import { MemoMap } from '@app/common';
import { AppConfig } from '@app/config';
import { BusMember, CacheBus, RedisService } from '@app/redis';

import { dimensions } from '../record/visit-classifier';
import { VisitInput } from '../types';
import { LISTEN_TTL_MS, LIVE_BUS_MEMBER, LiveKeys, LiveMessage, LiveVisit } from './live-keys';

/** How often a process reads whose visits are listened to. */
export const LISTENERS_POLL_MS = 1000;
/** Visits of one user held for one publish at most; past it the batch's later visits are dropped. */
const MAX_BATCH = 1000;

/**
 * The redirect side of the live stream. The recorder hands it every counted visit; it costs one
 * Set lookup unless someone listens to the visit's owner:
 *
 * - whose visits are listened to: every second, one ZRANGEBYSCORE of `live:users` (streams keep
 *   their users there with a lapse time); and at once, when a stream opens on any replica, a
 *   message on the cache bus (member `live`) naming its user, so the visits made right after a
 *   stream opened are not missed while waiting for the next read.
 * - a listened visit becomes a LiveVisit (its dimensions are the recorder's memoised ones: no
 *   address, no digest), held in memory per owner and published every LIVE_BATCH_MS (one PUBLISH
 *   per owner and batch on the process's Redis connection): no Redis call per visit.
 */
@Injectable()
export class LivePublisher implements BusMember, OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(LivePublisher.name);
  readonly keys: LiveKeys;
  /** users listened to, as last read */
  private listened = new Set<number>();
  /** users a stream announced on the bus: listened until this time (ms), whatever a read says */
  private readonly announced = new Map<number, number>();
  private readonly batches = new Map<number, LiveVisit[]>();
  private poller?: NodeJS.Timeout;
  private timer: NodeJS.Timeout | null = null;
  private dropped = 0;
  /** a visit profile field → its labels as a stream sends them */
  private readonly profiles = new MemoMap<string, Omit<LiveVisit, 'date' | 'link'>>(10_000);
  /** the last second a date was written for, and that date (`YYYY-MM-DD HH:MM:SS`) */
  private second = -1;
  private date = '';

  constructor(
    private readonly redis: RedisService,
    private readonly config: AppConfig,
    bus: CacheBus,
  ) {
    this.keys = new LiveKeys(redis);
    bus.join(LIVE_BUS_MEMBER, this);
  }

  onModuleInit(): void {
    this.poller = setInterval(() => void this.poll(), LISTENERS_POLL_MS);
    this.poller.unref();
    void this.poll();
  }

  onModuleDestroy(): void {
    clearInterval(this.poller);
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.publish();
  }

  /** Whether visits of `userId` are streamed somewhere (the recorder's one check per visit). */
  wants(userId: number): boolean {
    return this.listened.size > 0 && this.listened.has(userId);
  }

  /**
   * A counted visit of a listened owner, `profile` its profile field as the recorder memoised it
   * (the visit's labels): held for the next publish.
   */
  add(visit: VisitInput, profile: string, at: number): void {
    let batch = this.batches.get(visit.userId);
    if (!batch) this.batches.set(visit.userId, (batch = []));
    if (batch.length >= MAX_BATCH) {
      this.dropped += 1;
      return;
    }
    // the labels of a profile, derived once per profile (the profile field names them all)
    let labels = this.profiles.get(profile);
    if (!labels) {
      const d = dimensions(visit.ip, visit.userAgent, visit.referer, visit.acceptLanguage);
      labels = {
        country: d.country,
        // the profile field holds the city, so one profile is one city
        city: d.city === 'Unknown' ? null : d.city,
        referrer: d.referrer,
        browser: d.browser,
        os: d.os,
        device: d.device,
      };
      this.profiles.set(profile, labels);
    }
    const second = Math.floor(at / 1000);
    if (second !== this.second) {
      this.second = second;
      this.date = new Date(at).toISOString().slice(0, 19).replace('T', ' ');
    }
    batch.push({ date: this.date, link: visit.linkId, ...labels });
    if (!this.timer)
      this.timer = setTimeout(() => {
        this.timer = null;
        this.publish();
      }, this.config.LIVE_BATCH_MS).unref();
  }

  /** One PUBLISH per owner with visits waiting. */
  private publish(): void {
    if (!this.batches.size) return;
    const batches = [...this.batches];
    this.batches.clear();
    if (this.dropped) {
      this.logger.warn(`live: ${this.dropped} visits over ${MAX_BATCH} per batch not streamed`);
      this.dropped = 0;
    }
    if (!this.redis.ready) return;
    for (const [userId, visits] of batches) {
      const message: LiveMessage = { u: userId, e: visits };
      this.redis.client
        .publish(this.keys.channel(userId), JSON.stringify(message))
        .catch((err: Error) => this.logger.warn(`live visits not published: ${err.message}`));
    }
  }

  /** Reads whose visits are listened to (every LISTENERS_POLL_MS). */
  private async poll(): Promise<void> {
    if (!this.redis.ready) return;
    try {
      const now = Date.now();
      const ids = await this.redis.client.zrangebyscore(this.keys.listeners, now, '+inf');
      const listened = new Set(ids.map(Number));
      for (const [userId, until] of this.announced) {
        if (until <= now) this.announced.delete(userId);
        else listened.add(userId);
      }
      this.listened = listened;
    } catch (err) {
      this.logger.debug(`live listeners not read: ${(err as Error).message}`);
    }
  }

  /** The bus: a stream opened for these users (on any replica). */
  drop(names: string[]): void {
    const until = Date.now() + LISTEN_TTL_MS;
    for (const name of names) {
      const userId = Number(name);
      if (!Number.isInteger(userId)) continue;
      this.announced.set(userId, until);
      this.listened.add(userId);
    }
  }

  /** The bus reconnected: nothing to forget (the next read says who listens). */
  reset(): void {}
}
