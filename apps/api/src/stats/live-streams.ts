import { randomUUID } from 'node:crypto';

import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { Request, Response } from 'express';

import {
  AUTH_MESSAGES,
  AuthService,
  Need,
  Principal,
  roleAllows,
  scopesAllow,
  ServiceUnavailableError,
  sessionToken,
  sha256,
  TooManyRequestsError,
} from '@app/common';
import { AppConfig } from '@app/config';
import { RedisClient, RedisService } from '@app/redis';
import { LiveHub, LiveKeys, LiveListener, LiveVisit } from '@app/stats';

/** What a stream's caller needs, checked again every second (the routes' own need). */
const NEED: Need = 'stats:read';
/** How often open streams check their credential again (key revoked, session ended…). */
const CHECK_MS = 1000;
/** A stream's slot lapses this long after its last renewal (a crashed replica's slots too). */
const SLOT_TTL_MS = 30_000;
/** Slots are renewed every this many checks. */
const SLOT_RENEW_EVERY = 10;
/** A client that lets this much of its stream pile up unread is cut off. */
const MAX_BUFFERED = 1 << 20;
/** How long a refused client waits before trying again (429). */
const RETRY_AFTER_SECONDS = 10;

/** Takes a stream slot: KEYS[1] the credential's set; ARGV now, lapse, cap, stream id, ttl. */
const TAKE_SLOT = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return 1`;

type SlotTaking = RedisClient & {
  liveSlot(key: string, ...args: Array<string | number>): Promise<number>;
};

const SSE_HEADERS = {
  'Content-Type': 'text/event-stream; charset=utf-8',
  // nothing between here and the client may keep, transform (compress) or buffer the stream
  'Cache-Control': 'no-store, no-transform',
  'X-Accel-Buffering': 'no',
  Connection: 'keep-alive',
};

class Stream implements LiveListener {
  readonly id = randomUUID();
  /** visits that came before the response's head was written */
  private early: LiveVisit[] | null = [];
  heartbeat?: NodeJS.Timeout;
  checking = false;
  closed = false;

  constructor(
    readonly userId: number,
    readonly linkId: number | null,
    readonly slotKey: string,
    /** the credential's headers, to resolve it again */
    readonly headers: Record<string, string>,
    readonly res: Response,
    private readonly onSlow: () => void,
  ) {}

  deliver(visits: LiveVisit[]): void {
    if (this.closed || this.res.destroyed) return;
    if (this.early) {
      this.early.push(...visits);
      return;
    }
    if (this.res.writableLength > MAX_BUFFERED) return this.onSlow();
    this.res.write(visits.map((v) => `data: ${JSON.stringify(v)}\n\n`).join(''));
  }

  /** The head is written: from now on visits go straight out. */
  started(): void {
    const early = this.early ?? [];
    this.early = null;
    if (early.length) this.deliver(early);
  }
}

/**
 * The live visit streams of this api process (`GET /api/url/:id/live`, `GET /api/stats/live`):
 * Server-Sent Events fed by LiveHub (Redis pub/sub, so a visit recorded on any replica reaches
 * a stream on any other). Each stream:
 * - takes a slot of its API key or session (`live:streams:<digest>` in Redis, shared by every
 *   replica): LIVE_STREAMS_PER_KEY at once, past it 429;
 * - sends a comment line every LIVE_HEARTBEAT_MS, so proxies and clients see it alive;
 * - resolves its credential again every second, as a new request would (the PrincipalCache,
 *   which key revocations and user changes invalidate on every replica through the cache bus;
 *   the session in Redis, which signing out or a password change deletes): a revoked or expired
 *   key, an ended session, a membership or scope taken away end the stream with an `end` event;
 * - ends and gives back its slot when the client goes away.
 */
@Injectable()
export class LiveStreams implements OnModuleDestroy {
  private readonly logger = new Logger(LiveStreams.name);
  private readonly keys: LiveKeys;
  private readonly open = new Set<Stream>();
  private ticker?: NodeJS.Timeout;
  private ticks = 0;
  private defined = false;

  constructor(
    private readonly redis: RedisService,
    private readonly config: AppConfig,
    private readonly hub: LiveHub,
    private readonly auth: AuthService,
  ) {
    this.keys = new LiveKeys(redis);
  }

  /** Streams the visits of `auth`'s workspace (one short code's when `linkId` is set) into `res`. */
  async stream(auth: Principal, linkId: number | null, req: Request, res: Response): Promise<void> {
    // HEAD (Express routes it here with GET): the head alone, no stream, no slot
    if (req.method === 'HEAD') {
      res.writeHead(200, SSE_HEADERS);
      return void res.end();
    }
    if (!this.redis.ready)
      throw new ServiceUnavailableError('Live statistics need Redis, which cannot be reached now');
    const headers = credentialHeaders(req);
    const slotKey = this.keys.streams(credentialDigest(headers, auth));
    const stream = new Stream(auth.user.id, linkId, slotKey, headers, res, () =>
      this.close(stream, 'the client does not read the stream'),
    );
    let gone = false;
    const onGone = () => {
      gone = true;
      this.close(stream, null);
    };
    // the response's close: the client went away (a GET request's own 'close' comes once it is
    // read), or the refusal below was sent
    res.once('close', onGone);
    await this.takeSlot(stream);
    if (gone) {
      // left while the slot was taken: give it back (close() may have run before it was taken)
      this.redis.client.zrem(slotKey, stream.id).catch(() => undefined);
      return;
    }
    try {
      await this.hub.add(stream);
    } catch (err) {
      this.close(stream, null);
      if (gone) return;
      this.logger.warn(`live stream not opened: ${(err as Error).message}`);
      throw new ServiceUnavailableError('Live statistics need Redis, which cannot be reached now');
    }
    if (gone || stream.closed) return this.close(stream, null);
    this.open.add(stream);
    const heartbeatMs = this.config.LIVE_HEARTBEAT_MS;
    // bytes move at least every heartbeat: the front's inactivity timer must not cut it first
    req.socket.setTimeout(Math.max(this.config.RESPONSE_TIMEOUT_SECONDS * 1000, 3 * heartbeatMs));
    req.socket.setNoDelay(true);
    res.writeHead(200, SSE_HEADERS);
    res.write(`retry: 5000\n: connected\n\n`);
    stream.started();
    stream.heartbeat = setInterval(() => {
      if (!stream.closed && !res.destroyed) res.write(`: heartbeat\n\n`);
    }, heartbeatMs);
    stream.heartbeat.unref();
    this.startTicker();
  }

  onModuleDestroy(): void {
    clearInterval(this.ticker);
    this.closeAll();
  }

  /**
   * Ends every stream of this process (on SIGTERM, before the server waits for its connections
   * to finish: a stream would hold it; EventSource clients reconnect to another replica).
   */
  closeAll(): void {
    for (const s of [...this.open]) this.close(s, 'the server is shutting down');
  }

  /** Open streams in this process (tests, health). */
  get size(): number {
    return this.open.size;
  }

  private async takeSlot(stream: Stream): Promise<void> {
    const client = this.redis.client as SlotTaking;
    if (!this.defined) {
      client.defineCommand('liveSlot', { numberOfKeys: 1, lua: TAKE_SLOT });
      this.defined = true;
    }
    const now = Date.now();
    const cap = this.config.LIVE_STREAMS_PER_KEY;
    let taken: number;
    try {
      taken = await client.liveSlot(
        stream.slotKey,
        now,
        now + SLOT_TTL_MS,
        cap,
        stream.id,
        SLOT_TTL_MS,
      );
    } catch (err) {
      this.logger.warn(`live stream slot not taken: ${(err as Error).message}`);
      throw new ServiceUnavailableError('Live statistics need Redis, which cannot be reached now');
    }
    if (taken !== 1)
      throw new TooManyRequestsError(
        `At most ${cap} live streams may be open at once per API key or session (LIVE_STREAMS_PER_KEY): close one first`,
        RETRY_AFTER_SECONDS,
      );
  }

  /** Ends a stream: `reason` null when the client left (nothing more is written). */
  private close(stream: Stream, reason: string | null): void {
    if (stream.closed) return;
    stream.closed = true;
    clearInterval(stream.heartbeat);
    this.open.delete(stream);
    this.hub.remove(stream);
    this.redis.client.zrem(stream.slotKey, stream.id).catch(() => undefined);
    const res = stream.res;
    if (!res.headersSent || res.writableEnded) return;
    if (reason !== null && !res.destroyed)
      res.write(`event: end\ndata: ${JSON.stringify({ reason })}\n\n`);
    res.end();
  }

  private startTicker(): void {
    if (this.ticker) return;
    this.ticker = setInterval(() => this.tick(), CHECK_MS);
    this.ticker.unref();
  }

  /** Every second: each stream's credential again; every ten, its slot renewed. */
  private tick(): void {
    this.ticks += 1;
    const renew = this.ticks % SLOT_RENEW_EVERY === 0;
    for (const stream of this.open) {
      if (renew)
        this.redis.client
          .zadd(stream.slotKey, 'XX', Date.now() + SLOT_TTL_MS, stream.id)
          .catch(() => undefined);
      if (stream.checking) continue;
      stream.checking = true;
      this.refusal(stream)
        .then((reason) => {
          if (reason) this.close(stream, reason);
        })
        .catch((err: Error) => this.logger.debug(`live stream check failed: ${err.message}`))
        .finally(() => (stream.checking = false));
    }
  }

  /** Why the stream's caller may no longer read it, or null. */
  private async refusal(stream: Stream): Promise<string | null> {
    const result = await this.auth.resolve({ method: 'GET', headers: { ...stream.headers } });
    if ('failure' in result)
      return AUTH_MESSAGES[result.failure as keyof typeof AUTH_MESSAGES] ?? 'Workspace not found';
    const p = result.principal;
    if (p.user.id !== stream.userId) return 'Workspace not found';
    if (!roleAllows(p.role, NEED)) return `This needs the role viewer in this workspace`;
    if (p.key && !scopesAllow(p.key.scopes, NEED)) return `This key lacks the scope ${NEED}`;
    if (!p.isAdmin && !p.session && p.plan.limits.api?.enabled !== '1')
      return 'Your plan does not include API access';
    return null;
  }
}

/** The headers a request's credential is in (to resolve it again later). */
function credentialHeaders(req: Request): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of ['authorization', 'cookie', 'x-workspace']) {
    const value = req.headers[name];
    if (typeof value === 'string') out[name] = value;
  }
  return out;
}

/** Whose streams count together: the API key (its digest) or the session (its token's digest). */
function credentialDigest(headers: Record<string, string>, auth: Principal): string {
  const key = AuthService.bearer(headers.authorization);
  if (key) return sha256(`key:${key}`).slice(0, 32);
  const token = sessionToken(headers.cookie);
  if (token) return sha256(`session:${token}`).slice(0, 32);
  return `user-${auth.actor.id}`;
}
