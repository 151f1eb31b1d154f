import { decryptSecret, encryptSecret, generateApiKey, randomString, sha256 } from './crypto';

const SECRET = 'unit-test-secret-0123456789';

describe('encryptSecret / decryptSecret', () => {
  it('round-trips, with a fresh IV each time', () => {
    const plain = 'AbC123-key-Ω';
    const a = encryptSecret(plain, SECRET);
    const b = encryptSecret(plain, SECRET);
    expect(a).not.toBe(b);
    expect(a).not.toContain(plain);
    expect(a).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(decryptSecret(a, SECRET)).toBe(plain);
    expect(decryptSecret(b, SECRET)).toBe(plain);
  });

  it('rejects a tampered ciphertext, tag or IV', () => {
    const sealed = encryptSecret('the-api-key', SECRET);
    const parts = sealed.split('.');
    const flip = (p: string) => {
      const buf = Buffer.from(p, 'base64url');
      buf[0] ^= 0x01;
      return buf.toString('base64url');
    };
    for (const i of [0, 1, 2]) {
      const tampered = parts.map((p, j) => (j === i ? flip(p) : p)).join('.');
      expect(() => decryptSecret(tampered, SECRET)).toThrow();
    }
  });

  it('rejects another secret', () => {
    expect(() => decryptSecret(encryptSecret('the-api-key', SECRET), `${SECRET}x`)).toThrow();
  });
});

describe('randomString', () => {
  it('has the requested length over [A-Za-z0-9] by default', () => {
    for (const n of [1, 6, 48, 200]) {
      const s = randomString(n);
      expect(s).toHaveLength(n);
      expect(s).toMatch(/^[A-Za-z0-9]+$/);
    }
  });

  it('uses the whole alphabet and only it', () => {
    const seen = new Set(randomString(20_000));
    expect(seen.size).toBe(62);
    const custom = randomString(2_000, 'abc');
    expect(new Set(custom)).toEqual(new Set(['a', 'b', 'c']));
  });

  it('does not repeat', () => {
    const keys = new Set(Array.from({ length: 1000 }, () => randomString(48)));
    expect(keys.size).toBe(1000);
  });

  it('generateApiKey is 40 characters, sha256 a hex digest', () => {
    expect(generateApiKey()).toMatch(/^[A-Za-z0-9]{40}$/);
    expect(sha256('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});
