import * as argon2 from 'argon2';

import { ServiceUnavailableError } from '../http/errors';

/**
 * argon2id with the OWASP baseline (19 MiB, 2 passes, 1 lane): ~55 ms per hash on one core here,
 * against ~240 ms for the library default (64 MiB, 3 passes, 4 lanes) at no security benefit
 * OWASP asks for. Hashes record their parameters, so older hashes still verify.
 */
const OPTIONS = { type: argon2.argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

/**
 * argon2 runs on libuv's thread pool (4 threads by default), which file reads, DNS lookups and
 * other crypto share: at most this many hashes or verifications run at once, so that a flood of
 * password guesses cannot take the pool from everything else.
 */
export const MAX_CONCURRENT_HASHES = 2;
/** Hashes waiting their turn; past this, the request is refused (503) rather than queued. */
export const MAX_WAITING_HASHES = 200;

let running = 0;
const waiting: Array<() => void> = [];

async function limited<T>(work: () => Promise<T>): Promise<T> {
  if (running >= MAX_CONCURRENT_HASHES) {
    if (waiting.length >= MAX_WAITING_HASHES) throw new ServiceUnavailableError();
    await new Promise<void>((resolve) => waiting.push(resolve));
  } else running++;
  try {
    return await work();
  } finally {
    const next = waiting.shift();
    if (next) next();
    else running--;
  }
}

/** How many hashes run right now (for tests and health). */
export function hashesRunning(): number {
  return running;
}

/**
 * A hash made with OPTIONS of a random password nobody kept: a sign-in with an unknown e-mail
 * verifies against it, so that it costs what a wrong password costs (timing tells nothing of
 * which e-mails have accounts). Made again when OPTIONS change (passwords.spec.ts checks them).
 */
export const DUMMY_PASSWORD_HASH =
  '$argon2id$v=19$m=19456,p=1,t=2$q2gxutW2eFeiaIQ6XuTfdw$/wTJlOMrykjjW3iKxWv05XaHtk7A00JrIaf3bqFgCfI';

/** The parameters of OPTIONS as a hash records them. */
export const PASSWORD_HASH_PARAMS = `m=${OPTIONS.memoryCost},p=${OPTIONS.parallelism},t=${OPTIONS.timeCost}`;

/** Slow password hashing: user passwords (users, account) and link passwords (links, the password form). */
export const hashPassword = (plain: string): Promise<string> =>
  limited(() => argon2.hash(plain, OPTIONS));

export const verifyPassword = (hash: string, plain: string): Promise<boolean> =>
  limited(() => argon2.verify(hash, plain).catch(() => false));
