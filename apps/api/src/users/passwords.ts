import * as argon2 from 'argon2';

/**
 * argon2id with the OWASP baseline (19 MiB, 2 passes, 1 lane): ~55 ms per hash on one core here,
 * against ~240 ms for the library default (64 MiB, 3 passes, 4 lanes) at no security benefit
 * OWASP asks for. Hashes record their parameters, so older hashes still verify.
 */
const OPTIONS = { type: argon2.argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

/** Slow password hashing for user and link passwords. */
export const hashPassword = (plain: string): Promise<string> => argon2.hash(plain, OPTIONS);

export const verifyPassword = (hash: string, plain: string): Promise<boolean> =>
  argon2.verify(hash, plain).catch(() => false);
