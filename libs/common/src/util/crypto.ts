import { createCipheriv, createDecipheriv, createHash, hash, randomBytes } from 'node:crypto';

/** SHA-256 of a string; the one-shot `crypto.hash` (Node >= 20.12) is twice as fast where present. */
export function sha256(value: string, encoding: 'hex' | 'base64url' = 'hex'): string {
  return typeof hash === 'function'
    ? hash('sha256', value, encoding)
    : createHash('sha256').update(value).digest(encoding);
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/**
 * CSPRNG bytes taken RANDOM_POOL at a time: a short random string (a drawn alias, per creation)
 * then costs no call into OpenSSL and no Buffer of its own. Each byte is handed out once.
 */
const RANDOM_POOL = 4096;
let pool = Buffer.alloc(0);
let taken = 0;

function randomByte(): number {
  if (taken === pool.length) {
    pool = randomBytes(RANDOM_POOL);
    taken = 0;
  }
  return pool[taken++];
}

/** A CSPRNG string over [A-Za-z0-9] without modulo bias. */
export function randomString(length: number, alphabet = ALPHABET): string {
  const limit = 256 - (256 % alphabet.length);
  let out = '';
  while (out.length < length) {
    const b = randomByte();
    if (b < limit) out += alphabet[b % alphabet.length];
  }
  return out;
}

/** A new API key: 40 random characters. */
export function generateApiKey(): string {
  return randomString(40);
}

function keyFrom(secret: string): Buffer {
  return createHash('sha256').update(`api-key-encryption:${secret}`).digest();
}

/** AES-256-GCM with a key derived from the server secret; output `iv.tag.ciphertext` base64url. */
export function encryptSecret(plain: string, secret: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyFrom(secret), iv);
  const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return [iv, cipher.getAuthTag(), data].map((b) => b.toString('base64url')).join('.');
}

export function decryptSecret(sealed: string, secret: string): string {
  const [iv, tag, data] = sealed.split('.').map((p) => Buffer.from(p, 'base64url'));
  const decipher = createDecipheriv('aes-256-gcm', keyFrom(secret), iv);
  decipher.setAuthTag(tag);
  return Buffer.concat([decipher.update(data), decipher.final()]).toString('utf8');
}
