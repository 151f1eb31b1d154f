import { Injectable } from '@nestjs/common';

import { ServiceUnavailableError, sha256, TooManyRequestsError } from '@app/common';
import { RedisService } from '@app/redis';

/** Failed sign-ins allowed per account and per client address in a window; the next is a 429. */
export const MAX_SIGN_IN_FAILURES = 10;
/** The window, from the first failure. */
export const SIGN_IN_WINDOW_MS = 15 * 60 * 1000;

/** Counts one attempt (KEYS[1]: the counter; ARGV[1]: window ms) → {count, ms left}. */
const RESERVE = `
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return {n, redis.call('PTTL', KEYS[1])}`;

/** Takes one attempt back, if its window still runs (a DECR would create a counter without expiry). */
const RELEASE = `
local n = tonumber(redis.call('GET', KEYS[1]) or '0')
if n > 0 then return redis.call('DECR', KEYS[1]) end
return 0`;

type ReservingRedis = {
  reserveSignIn(key: string, windowMs: number): Promise<[number, number]>;
  releaseSignIn(key: string): Promise<number>;
};

/** The counters of one sign-in, to release when it succeeds. */
export interface Reservation {
  keys: string[];
}

/**
 * The guess limit of `POST /auth/session`: each attempt is counted as a failure in Redis before
 * the password is verified (an atomic INCR per counter, shared by every replica), and released
 * when it succeeds; so however many guesses arrive at once, at most MAX_SIGN_IN_FAILURES are
 * verified per account (its e-mail, known or not, lower-cased and hashed) and per client address
 * in SIGN_IN_WINDOW_MS. Past it: 429 with Retry-After until the window ends, even for the right
 * password. Each counter is a key of its own (a cluster puts them in any slots).
 */
@Injectable()
export class SignInAttempts {
  private defined = false;

  constructor(private readonly redis: RedisService) {}

  /** Counts an attempt for `email` from `address`; 429 when either is past the limit. */
  async reserve(email: string, address: string): Promise<Reservation> {
    if (!this.redis.ready) throw new ServiceUnavailableError();
    const keys = [
      this.redis.key('signin', 'account', sha256(email.toLowerCase())),
      this.redis.key('signin', 'ip', address),
    ];
    const client = this.scripts();
    const counts = await Promise.all(keys.map((k) => client.reserveSignIn(k, SIGN_IN_WINDOW_MS)));
    const over = counts.filter(([n]) => n > MAX_SIGN_IN_FAILURES);
    if (over.length) {
      const ms = Math.max(...over.map(([, ttl]) => ttl));
      const minutes = Math.max(1, Math.ceil(ms / 60_000));
      throw new TooManyRequestsError(
        `Too many failed sign-ins: try again in ${minutes} minute${minutes === 1 ? '' : 's'}`,
        Math.max(1, Math.ceil(ms / 1000)),
      );
    }
    return { keys };
  }

  /** The attempt succeeded: it is no failure. */
  async release(reservation: Reservation): Promise<void> {
    const client = this.scripts();
    await Promise.all(reservation.keys.map((k) => client.releaseSignIn(k)));
  }

  private scripts(): ReservingRedis {
    if (!this.defined) {
      this.redis.client.defineCommand('reserveSignIn', { numberOfKeys: 1, lua: RESERVE });
      this.redis.client.defineCommand('releaseSignIn', { numberOfKeys: 1, lua: RELEASE });
      this.defined = true;
    }
    return this.redis.client as unknown as ReservingRedis;
  }
}
