import { Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { ChainableCommander } from 'ioredis';

import { MemoMap, sha256 } from '@app/common';
import { AppConfig } from '@app/config';
import { RedisClient, RedisService } from '@app/redis';

import {
  dayKey,
  HLL_TTL_SECONDS,
  hourKey,
  monthKey,
  profileField,
  RECORD_CHUNK_SCRIPT,
  RECORD_VISIT_SCRIPT,
  StatsKeys,
  TAKE_CAP_SCRIPT,
} from '../keys';
import { LivePublisher } from '../live/live-publisher';
import { PartitionPipelines } from '../partition-pipelines';
import { VisitInput } from '../types';
import { ClickCaps } from './click-caps';
import { LinkDay, Visitor, VisitLog, VisitOrder } from './visit-log';
import { openCityDatabase } from './geo-city';
import { countableAgent, countableMethod, dimensions, MAX_HEADER_CHARS } from './visit-classifier';

/** A flush also starts once this many visits are waiting. */
const FLUSH_AT = 20_000;
/** Chunks serialised and written per turn of the event loop during a flush (one pipeline). */
const CHUNKS_PER_TURN = 2;
/**
 * Link-days per Redis call within a flush. The call is atomic, so this bounds how long it holds
 * Redis (about 0.2 ms); Redis serves other connections, the redirects' reads among them,
 * between the calls.
 */
const FLUSH_CHUNK = 50;

const CAP_TTL_SECONDS = 40 * 24 * 3600;

type RecordingPipeline = ChainableCommander & {
  recordVisit(...args: Array<string | number>): unknown;
  recordVisitChunk(...args: Array<string | number>): unknown;
};

type CapTaking = {
  takeClick(key: string, cap: number, ttl: number): Promise<number>;
};

/**
 * Records visits in Redis without slowing the redirect; callers fire and forget after the
 * response. Bots, preview fetchers and HEAD requests are not counted.
 *
 * Two paths:
 * - owners without a monthly `clicks` cap (the bulk of traffic): visits are aggregated in memory
 *   per link and day and written every STATS_FLUSH_MS (500 ms), one Lua call per partition and
 *   up to 50 link-days.
 *   A process that dies without SIGTERM loses at most that window; SIGTERM flushes it.
 * - a visit whose owner's cap is not cached yet waits for it (one turn of the event loop; the
 *   owners of all such visits are read in one statement): then it takes one of the two paths;
 * - owners with a cap: per visit, one Lua
 *   call takes a click of the owner's monthly allowance (checks and counts the cap atomically,
 *   so the cap holds across replicas; past it, the visit is not counted, the redirect still
 *   happens), then one records the visit. The two are separate calls because the cap counter
 *   is a key of its own slot on a cluster; a visit whose recording fails gives its click back
 *   (best effort: if that fails too, the owner's month counts a click that was not recorded; a
 *   reply lost to a timeout after Redis recorded the visit gives back a click that was).
 *
 * Every Redis call touches the keys of one statistics partition (see StatsKeys): a flush writes
 * a chunk per partition, on a cluster one pipeline per partition.
 */
@Injectable()
export class VisitRecorder implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(VisitRecorder.name);
  private readonly keys: StatsKeys;
  private defined = false;
  /** Visits of this tick, recorded together on the next (their Redis calls share one write). */
  private queue: VisitInput[] = [];

  constructor(
    private readonly redis: RedisService,
    private readonly config: AppConfig,
    private readonly caps: ClickCaps,
    private readonly live: LivePublisher,
  ) {
    this.keys = new StatsKeys(redis, config.STATS_PARTITIONS);
  }

  /** Visits since the last flush; `spare` is the log a running flush reads. */
  private log = new VisitLog();
  private spare = new VisitLog();
  private readonly order = new VisitOrder();
  private readonly partitionOf = (linkId: number): number => this.keys.partitionOf(linkId);
  private flushing: Promise<void> = Promise.resolve();
  private readonly visitors = new MemoMap<string, Visitor>(50_000);
  private timer: NodeJS.Timeout | null = null;
  /**
   * The connection flushes write on. A flush pipeline holds its connection for a few hundred
   * microseconds per chunk; on a connection of its own it never queues ahead of the redirect's
   * cache reads (Redis serves other connections between the chunks).
   */
  private writer?: RedisClient;

  onModuleInit(): void {
    // the city database is read into memory now, not on the first visit (GEOIP_CITY_DB, when
    // set, must be readable: a bad setting fails the start)
    if (!openCityDatabase(this.config.GEOIP_CITY_DB))
      this.logger.warn('no city database installed: cities and regions are counted as Unknown');
    this.writer = this.redis.duplicate();
    // no fixed number of keys: each call names its partition's dirty set and its entries' keys
    this.writer.defineCommand('recordVisitChunk', { lua: RECORD_CHUNK_SCRIPT });
  }

  /**
   * Fire and forget: never throws, never awaited on the request path. Whether the visit counts (a
   * browser's GET or POST, not a bot's) is read off the visitor memo, so a returning visitor
   * costs one lookup for both.
   */
  record(visit: VisitInput): void {
    if (!countableMethod(visit.method)) return;
    // a visit held through an outage counts on its own day and hour
    const now = visit.at ?? Date.now();
    const v = this.visitor(visit, dayKey(now), hourKey(now));
    if (!v.countable) return;
    if (this.caps.peek(visit.userId) === 0) {
      // counted (no cap): streamed live if someone listens (one Set lookup otherwise)
      if (this.live.wants(visit.userId)) this.live.add(visit, v.field, now);
      const n = this.log.push(visit.linkId, v);
      if (n === FLUSH_AT) void this.flushQuietly();
      else if (!this.timer)
        this.timer = setTimeout(() => void this.flushQuietly(), this.config.STATS_FLUSH_MS).unref();
    } else if (this.queue.push(visit.at === undefined ? { ...visit, at: now } : visit) === 1) {
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
   * Takes the log (the spare one takes new visits meanwhile), groups its visits into buckets of
   * links (VisitOrder: a counting sort into kept typed arrays) and writes them bucket by bucket: each turn of the
   * event loop aggregates a few buckets per link and day, and sends their link-days in chunks of
   * FLUSH_CHUNK, one pipeline a turn, so requests never wait behind more than about
   * FLUSH_CHUNK × CHUNKS_PER_TURN link-days. A link-day lives from its bucket's turn to Redis's
   * reply, not through the whole flush. Replies are awaited only at the end.
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
      const order = this.order;
      order.sort(log, held, this.keys.count, this.partitionOf, FLUSH_CHUNK);
      const sent: Array<Promise<void>> = [];
      let failed = 0;
      let linkDays = 0;
      let reason = '';
      // the chunk being filled: link-days of one partition (buckets come in partition order)
      let chunk: LinkDay[] = [];
      let partition = 0;
      for (let b = 0; b < order.buckets;) {
        if (b) await nextTurn();
        const pipelines = new PartitionPipelines<RecordingPipeline>(writer, this.keys);
        const sizes: number[] = [];
        const send = () => {
          this.addChunk(pipelines, partition, chunk);
          sizes.push(chunk.length);
          linkDays += chunk.length;
          chunk = [];
        };
        for (const stop = linkDays + FLUSH_CHUNK * CHUNKS_PER_TURN; b < order.buckets; b++) {
          if (linkDays + chunk.length >= stop) break;
          const p = order.partitionOf(b);
          if (p !== partition && chunk.length) send();
          partition = p;
          order.aggregate(log, b, chunk);
          while (chunk.length >= FLUSH_CHUNK) {
            const rest = chunk.splice(FLUSH_CHUNK);
            send();
            chunk = rest;
          }
        }
        if (b === order.buckets && chunk.length) send();
        if (!sizes.length) continue;
        sent.push(
          pipelines.exec().then((replies) =>
            replies.forEach(([err], i) => {
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
        this.logger.warn(`${failed} of ${linkDays} links' visits not recorded: ${reason}`);
    } finally {
      log.clear();
    }
  }

  /** One chunk script call: `entries` (link-days of `partition`) added to its counters. */
  private addChunk(
    pipelines: PartitionPipelines<RecordingPipeline>,
    partition: number,
    entries: LinkDay[],
  ): void {
    const keys = this.keys.partitions[partition];
    const entryKeys: string[] = [];
    for (const e of entries)
      entryKeys.push(keys.pending(e.linkId), this.keys.visitors(e.linkId, e.day));
    const args = JSON.stringify(entries);
    pipelines.add(partition, (p) =>
      p.recordVisitChunk(1 + entryKeys.length, keys.dirty, ...entryKeys, args),
    );
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
    this.recordQueued(visits).catch((err: Error) =>
      this.logger.warn(`${visits.length} visits not recorded: ${err.message}`),
    );
  };

  /**
   * The visits that waited for their owners' caps (read in one statement): those of owners
   * without a cap join the log, as `record` sends them once the cap is known (cold traffic over
   * many owners costs no more than warm); the others are recorded one by one under their cap.
   */
  private async recordQueued(visits: VisitInput[]): Promise<void> {
    const caps = await this.caps.ofMany(visits.map((v) => v.userId));
    const capped: VisitInput[] = [];
    visits.forEach((v, i) => {
      // a cap that could not be read (not remembered) keeps the exact path: counted there
      if (caps[i] === 0 && this.caps.peek(v.userId) === 0) this.record(v);
      else capped.push(v);
    });
    if (capped.length) await this.recordMany(capped);
  }

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
    // each visit on its own day, hour and month (one held through an outage: when it was made)
    const at = visits.map((v) => v.at ?? now.getTime());
    const visitors = visits.map((v, i) =>
      countableMethod(v.method) ? this.visitor(v, dayKey(at[i]), hourKey(at[i])) : null,
    );
    const countable = visitors.map((v) => v?.countable === true);
    const caps = await Promise.all(
      visits.map((v, i) => (countable[i] ? this.caps.of(v.userId) : 0)),
    );
    this.defineOnce();
    const capKeys = visits.map((v, i) => this.keys.cap(v.userId, monthKey(new Date(at[i]))));
    const taken = await Promise.all(
      visits.map((_, i) => (countable[i] ? this.takeClick(capKeys[i], caps[i]) : false)),
    );
    const pipelines = new PartitionPipelines<RecordingPipeline>(this.redis.client, this.keys);
    const recorded: number[] = [];
    visits.forEach((visit, i) => {
      const v = visitors[i];
      if (!v || !taken[i]) return;
      const keys = this.keys.of(visit.linkId);
      const sketch = this.keys.visitors(visit.linkId, dayKey(at[i]));
      pipelines.add(keys.partition, (p) =>
        p.recordVisit(
          keys.pending(visit.linkId),
          sketch,
          keys.dirty,
          visit.linkId,
          HLL_TTL_SECONDS,
          v.digest,
          v.field,
        ),
      );
      recorded.push(i);
    });
    const counted = visits.map(() => false);
    const replies = pipelines.length ? await pipelines.exec() : [];
    replies.forEach(([err], r) => {
      const i = recorded[r];
      if (!err) {
        counted[i] = true;
        // counted under the cap: streamed live if someone listens
        if (this.live.wants(visits[i].userId))
          this.live.add(visits[i], (visitors[i] as Visitor).field, at[i]);
      } else void this.redis.client.decr(capKeys[i]).catch(() => undefined);
    });
    return counted;
  }

  /**
   * Takes one click of the owner's allowance this month (`cap` 0: none, the click is still
   * counted): false once the cap is reached, or when Redis fails.
   */
  private async takeClick(key: string, cap: number): Promise<boolean> {
    const client = this.redis.client as RedisClient & CapTaking;
    return (await client.takeClick(key, cap, CAP_TTL_SECONDS).catch(() => 0)) === 1;
  }

  /**
   * Whether the visitor's visits count (not a bot), their digest of IP and user agent, keyed
   * with APP_SECRET (no raw IP reaches Redis or Postgres), and the profile field of this visit.
   * The digest is the same on every day, so that the union of a range's daily HyperLogLogs counts
   * a returning visitor once; only the sketches' registers are kept, from which no digest can be
   * read back. Memoised per IP and day, in memory only: a returning visitor with the same agent,
   * referrer, languages, query and link parameters in the same hour costs one lookup; in a new
   * hour, or with another referrer, query or link, only the profile field is made again (its
   * address lookups, country and city, are memoised per address).
   */
  private visitor(visit: VisitInput, day: string, hour: string): Visitor {
    // the memo keeps the headers only as far as they are read (MAX_HEADER_CHARS): 50 000
    // remembered visitors must not hold 16 KB of headers each
    const userAgent = cut(visit.userAgent) ?? '';
    const referer = cut(visit.referer);
    const acceptLanguage = cut(visit.acceptLanguage);
    let v = this.visitors.get(visit.ip);
    if (!v || v.day !== day || v.userAgent !== userAgent) {
      const countable = countableAgent(visit.userAgent);
      v = {
        day,
        hour,
        userAgent,
        countable,
        // a bot's visits are not counted: nothing to digest or classify
        digest: countable
          ? sha256(`${this.config.secret}|${visit.ip}|${userAgent}`, 'base64url').slice(0, 22)
          : '',
        referer,
        acceptLanguage,
        query: visit.query,
        parameters: visit.parameters,
        field: countable ? this.field(visit, hour) : '',
      };
      this.visitors.set(visit.ip, v);
    } else if (
      v.countable &&
      (v.hour !== hour ||
        v.referer !== referer ||
        v.acceptLanguage !== acceptLanguage ||
        v.query !== visit.query ||
        v.parameters !== visit.parameters)
    ) {
      // a new object: the visit log holds the previous one for visits already logged
      v = {
        ...v,
        hour,
        referer,
        acceptLanguage,
        query: visit.query,
        parameters: visit.parameters,
        field: this.field(visit, hour),
      };
      this.visitors.set(visit.ip, v);
    }
    return v;
  }

  private field(visit: VisitInput, hour: string): string {
    return profileField(
      hour,
      dimensions(visit.ip, visit.userAgent, visit.referer, visit.acceptLanguage, visit),
    );
  }

  private defineOnce(): void {
    if (!this.defined) {
      this.redis.client.defineCommand('takeClick', { numberOfKeys: 1, lua: TAKE_CAP_SCRIPT });
      this.redis.client.defineCommand('recordVisit', { numberOfKeys: 3, lua: RECORD_VISIT_SCRIPT });
      this.defined = true;
    }
  }
}

/** A header as far as the classifier reads it. */
const cut = (header: string | undefined): string | undefined =>
  header !== undefined && header.length > MAX_HEADER_CHARS
    ? header.slice(0, MAX_HEADER_CHARS)
    : header;

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));
