import { IncomingMessage, ServerResponse } from 'node:http';

import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

import { ClientAddress, verifyPassword } from '@app/common';
import { CachedLink } from '@app/links';
import { RedisService } from '@app/redis';

import { passwordPage, PAGES } from './pages';
import { PublicResponder, STATIC, StaticPage, staticPage } from './responder';

/** Largest password form accepted. */
const MAX_FORM_BYTES = 4096;
/** Password checks per link and client address in a window (right or wrong). */
export const MAX_PASSWORD_ATTEMPTS = 10;
const PASSWORD_WINDOW_SECONDS = 600;

/** Counts one attempt and returns the count of the window (KEYS[1]: the counter; ARGV[1]: window). */
const RESERVE = `
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
return n`;

type ReservingRedis = { reservePasswordAttempt(key: string, window: number): Promise<number> };

const TOO_MANY = staticPage(PAGES.tooManyAttempts, [
  'Retry-After',
  String(PASSWORD_WINDOW_SECONDS),
]);

/**
 * Password-protected links: the form (GET) and its answer (POST `/<alias>`). Each attempt is
 * reserved in Redis (one atomic INCR, shared by every replica) before the password is verified:
 * at most MAX_PASSWORD_ATTEMPTS verifications per link and client address per window, however
 * many guesses arrive at once. Verifications also wait their turn for the argon2 slots
 * (`verifyPassword`), so guesses cannot occupy the thread pool. While Redis is unreachable the
 * attempts are not counted (logged); the argon2 slots still bound them.
 */
@Injectable()
export class PasswordGate {
  private readonly logger = new Logger(PasswordGate.name);
  private defined = false;

  constructor(
    private readonly responder: PublicResponder,
    private readonly redis: RedisService,
    private readonly clients: ClientAddress,
    @InjectDataSource() private readonly db: DataSource,
  ) {}

  /** The form (it says nothing of the link). */
  ask(res: ServerResponse): void {
    this.responder.sendPage(res, 200, passwordPage(false));
  }

  /** Checks a submitted form; `pass` answers the visit when the password is right. */
  async unlock(
    req: IncomingMessage,
    res: ServerResponse,
    link: CachedLink,
    pass: () => void,
  ): Promise<void> {
    const form = await readForm(req, res, this.responder);
    if (form === null) return;
    const password = form.get('password') ?? '';
    const attempts = await this.reserve(this.redis.key('pwtry', link.id, this.clients.of(req)));
    if (attempts > MAX_PASSWORD_ATTEMPTS) return this.responder.sendStatic(res, 429, TOO_MANY);
    const rows: Array<{ password_hash: string | null }> = await this.db.query(
      'SELECT password_hash FROM links WHERE id = $1',
      [link.id],
    );
    const hash = rows[0]?.password_hash;
    // a password removed in the meantime: the link is open
    const ok = hash
      ? password.length > 0 && password.length <= 128 && (await verifyPassword(hash, password))
      : rows.length > 0;
    if (!ok) return this.responder.sendPage(res, 401, passwordPage(true));
    pass();
  }

  /** Counts an attempt; the attempts of the window so far (0 while Redis is unreachable). */
  private async reserve(key: string): Promise<number> {
    if (!this.redis.ready) {
      this.logger.warn('Redis unavailable: password attempts not counted');
      return 0;
    }
    if (!this.defined) {
      this.redis.client.defineCommand('reservePasswordAttempt', { numberOfKeys: 1, lua: RESERVE });
      this.defined = true;
    }
    try {
      return await (this.redis.client as unknown as ReservingRedis).reservePasswordAttempt(
        key,
        PASSWORD_WINDOW_SECONDS,
      );
    } catch (err) {
      this.logger.warn(`password attempts not counted: ${(err as Error).message}`);
      return 0;
    }
  }
}

/**
 * Reads an `application/x-www-form-urlencoded` body of at most `maxBytes` (MAX_FORM_BYTES). Answers 413 / 400
 * itself and resolves null when the body is refused.
 */
export function readForm(
  req: IncomingMessage,
  res: ServerResponse,
  responder: PublicResponder,
  maxBytes = MAX_FORM_BYTES,
): Promise<URLSearchParams | null> {
  return new Promise((resolve, reject) => {
    const type = String(req.headers['content-type'] ?? '')
      .split(';')[0]
      .trim()
      .toLowerCase();
    const refuse = (page: StaticPage, status: number) => {
      // stop reading what is left of the body: the connection closes once the answer is out
      res.once('finish', () => req.destroy());
      responder.sendStatic(res, status, page);
      resolve(null);
    };
    if (type !== 'application/x-www-form-urlencoded') return refuse(STATIC.badForm, 400);
    if (Number(req.headers['content-length'] ?? 0) > maxBytes) return refuse(STATIC.tooLarge, 413);
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    req.on('data', (chunk: Buffer) => {
      if (done) return;
      size += chunk.length;
      if (size > maxBytes) {
        done = true;
        return refuse(STATIC.tooLarge, 413);
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (done) return;
      done = true;
      resolve(new URLSearchParams(Buffer.concat(chunks).toString('utf8')));
    });
    req.on('error', (err) => {
      if (done) return;
      done = true;
      reject(err);
    });
  });
}
