import { randomBytes, timingSafeEqual } from 'node:crypto';

import { Injectable, Logger } from '@nestjs/common';

import { AppConfig } from '@app/config';
import { RedisService } from '@app/redis';

import { sha256 } from '../util/crypto';

/** The session cookie's name. */
export const SESSION_COOKIE = 'lm_session';

/** The header that carries a session's CSRF token on every method but GET, HEAD and OPTIONS. */
export const CSRF_HEADER = 'x-csrf-token';

/** A session is renewed (its expiry pushed back) at most this often: reads stay reads. */
export const SESSION_RENEW_MS = 60 * 60 * 1000;

/** 32 CSPRNG bytes, base64url: the cookie's token and the CSRF token. */
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;
const newToken = () => randomBytes(32).toString('base64url');

/** What Redis holds for a session, under the SHA-256 digest of its token (never the token). */
export interface Session {
  userId: number;
  /** The CSRF token the session's writes must carry in `X-CSRF-Token`. */
  csrf: string;
  /** Epoch ms of the sign-in. */
  created: number;
  /** Epoch ms of the last renewal (the sign-in at first). */
  renewed: number;
}

/** The session token in a `Cookie` header, or null (none, or not one of ours). */
export function sessionToken(header: string | string[] | undefined): string | null {
  if (typeof header !== 'string') return null;
  let at = header.indexOf(`${SESSION_COOKIE}=`);
  while (at >= 0) {
    // the name starts the header or follows a separator (`x_lm_session=` is another cookie)
    if (at === 0 || header[at - 1] === ' ' || header[at - 1] === ';') {
      const start = at + SESSION_COOKIE.length + 1;
      const end = header.indexOf(';', start);
      const value = header.slice(start, end < 0 ? undefined : end).trim();
      return TOKEN_PATTERN.test(value) ? value : null;
    }
    at = header.indexOf(`${SESSION_COOKIE}=`, at + 1);
  }
  return null;
}

/** True when `sent` (the `X-CSRF-Token` header) is the session's token, compared in constant time. */
export function csrfMatches(session: Session, sent: string | string[] | undefined): boolean {
  if (typeof sent !== 'string' || sent.length !== session.csrf.length) return false;
  return timingSafeEqual(Buffer.from(sent), Buffer.from(session.csrf));
}

/**
 * Sessions of people signed in with their password (the dashboard), in Redis, shared by every
 * api replica; no process keeps a copy, so an ended session is refused at once everywhere.
 *
 * - `<prefix>:session:<sha256(token)>` → the Session as JSON, expiring SESSION_DAYS after its
 *   last renewal. The token (32 CSPRNG bytes) is only in the cookie.
 * - `<prefix>:sessions:<userId>` → a sorted set of the user's session digests (score: expiry, epoch
 *   ms), so that all of a user's sessions end at once (`endAll`).
 *
 * Each key is used in commands of its own (no multi-key command): a Redis Cluster puts them in
 * any slots. Reading a session is one GET (batched with the turn's other GETs); the renewal, at
 * most once an hour per session, is a write off the request's path.
 */
@Injectable()
export class SessionStore {
  private readonly logger = new Logger(SessionStore.name);
  /** How long a session lasts since its last renewal. */
  readonly ttlMs: number;
  private readonly secure: boolean;

  constructor(
    private readonly redis: RedisService,
    config: AppConfig,
  ) {
    this.ttlMs = config.SESSION_DAYS * 86_400_000;
    this.secure = config.publicUrl.startsWith('https:');
  }

  private sessionKey(digest: string): string {
    return this.redis.key('session', digest);
  }

  private indexKey(userId: number): string {
    return this.redis.key('sessions', userId);
  }

  /** A new session of `userId`: its token (for the cookie) and what is stored. */
  async create(userId: number): Promise<{ token: string; session: Session }> {
    const token = newToken();
    const digest = sha256(token);
    const now = Date.now();
    const session: Session = { userId, csrf: newToken(), created: now, renewed: now };
    const index = this.indexKey(userId);
    const client = this.redis.client;
    await Promise.all([
      client.set(this.sessionKey(digest), JSON.stringify(session), 'PX', this.ttlMs),
      // the index forgets the sessions that expired by themselves, then lists this one
      client
        .multi()
        .zremrangebyscore(index, '-inf', now)
        .zadd(index, now + this.ttlMs, digest)
        .pexpire(index, this.ttlMs)
        .exec(),
    ]);
    return { token, session };
  }

  /**
   * The session of a token, or null (unknown, expired, ended). Renews it when its last renewal is
   * SESSION_RENEW_MS old, without waiting for the write.
   */
  async read(token: string): Promise<Session | null> {
    const digest = sha256(token);
    const raw = await this.redis.reads.get(this.sessionKey(digest));
    if (raw === null) return null;
    let session: Session;
    try {
      session = JSON.parse(raw) as Session;
    } catch {
      return null;
    }
    if (!Number.isInteger(session.userId) || typeof session.csrf !== 'string') return null;
    if (Date.now() - session.renewed >= SESSION_RENEW_MS) this.renew(digest, session);
    return session;
  }

  private renew(digest: string, session: Session): void {
    const now = Date.now();
    const renewed = { ...session, renewed: now };
    const index = this.indexKey(session.userId);
    const client = this.redis.client;
    // XX: a session ended meanwhile stays ended
    client
      .set(this.sessionKey(digest), JSON.stringify(renewed), 'PX', this.ttlMs, 'XX')
      .then((done) =>
        done
          ? client
              .multi()
              .zadd(index, now + this.ttlMs, digest)
              .pexpire(index, this.ttlMs)
              .exec()
          : null,
      )
      .catch((err: Error) => this.logger.warn(`session not renewed: ${err.message}`));
  }

  /** Ends one session (signing out). */
  async end(token: string): Promise<void> {
    const digest = sha256(token);
    const raw = await this.redis.client.getdel(this.sessionKey(digest));
    let userId: unknown;
    try {
      userId = raw ? (JSON.parse(raw) as Partial<Session>).userId : undefined;
    } catch {
      return;
    }
    if (typeof userId === 'number' && Number.isInteger(userId))
      await this.redis.client.zrem(this.indexKey(userId), digest);
  }

  /**
   * Ends every session of a user, on every replica at once (the password changed, the user was
   * deleted). Call it after the change committed. A session created while this runs is caught by
   * its sign-in, which checks the password again after storing it.
   */
  async endAll(userId: number): Promise<void> {
    const index = this.indexKey(userId);
    const client = this.redis.client;
    const digests = await client.zrange(index, 0, -1);
    if (!digests.length) return;
    // one key per command: a cluster spreads them over slots
    await Promise.all(digests.map((d) => client.del(this.sessionKey(d))));
    await client.zrem(index, ...digests);
  }

  /** The `Set-Cookie` value of a session: HttpOnly, SameSite=Lax, Path=/, Secure over https. */
  cookie(token: string): string {
    return this.cookieOf(token, Math.floor(this.ttlMs / 1000));
  }

  /** The `Set-Cookie` value that removes the session cookie. */
  clearedCookie(): string {
    return this.cookieOf('', 0);
  }

  private cookieOf(value: string, maxAge: number): string {
    const parts = [
      `${SESSION_COOKIE}=${value}`,
      'Path=/',
      `Max-Age=${maxAge}`,
      'HttpOnly',
      'SameSite=Lax',
    ];
    if (this.secure) parts.push('Secure');
    return parts.join('; ');
  }
}
