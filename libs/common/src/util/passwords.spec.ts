import {
  DUMMY_PASSWORD_HASH,
  hashPassword,
  PASSWORD_HASH_PARAMS,
  verifyPassword,
} from './passwords';

describe('passwords', () => {
  it('hashes with the OWASP parameters and verifies', async () => {
    const hash = await hashPassword('secret1');
    expect(hash).toContain(`$${PASSWORD_HASH_PARAMS}$`);
    expect(await verifyPassword(hash, 'secret1')).toBe(true);
    expect(await verifyPassword(hash, 'secret2')).toBe(false);
  });

  it('the dummy hash of unknown sign-ins costs what a real one costs (same parameters)', async () => {
    expect(DUMMY_PASSWORD_HASH).toMatch(
      new RegExp(`^\\$argon2id\\$v=19\\$${PASSWORD_HASH_PARAMS}\\$`),
    );
    expect(await verifyPassword(DUMMY_PASSWORD_HASH, 'password1')).toBe(false);
  });
});
