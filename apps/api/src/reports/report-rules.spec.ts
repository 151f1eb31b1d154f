import {
  checkReport,
  formToken,
  reporterHash,
  shortLinkParts,
  validFormToken,
} from './report-rules';

describe('report rules', () => {
  const ok = { url: 'https://s.example/abc', reason: 'spam' };

  it('accepts a report and trims it', () => {
    expect(checkReport({ ...ok, details: ' x ', email: ' a@b.example ' })).toEqual({
      ok: true,
      value: { url: 'https://s.example/abc', reason: 'spam', details: 'x', email: 'a@b.example' },
    });
    expect(checkReport({ ...ok, email: '' })).toMatchObject({ ok: true, value: { email: null } });
  });

  it.each([
    [{ reason: 'spam' }, 'url'],
    [{ ...ok, url: 'not a url' }, 'url'],
    [{ ...ok, url: 'ftp://s.example/abc' }, 'url'],
    [{ ...ok, url: 'https://s.example/a/b' }, 'url'],
    [{ ...ok, url: 'https://s.example/' }, 'url'],
    [{ ...ok, url: 'https://x' + 'a'.repeat(2100) }, 'url'],
    [{ ...ok, reason: 'boring' }, 'reason'],
    [{ ...ok, reason: undefined }, 'reason'],
    [{ ...ok, details: 'd'.repeat(1001) }, 'details'],
    [{ ...ok, details: 5 }, 'details'],
    [{ ...ok, email: 'nobody' }, 'email'],
    [{ ...ok, email: 'a@b' }, 'email'],
    [{ ...ok, email: ['a@b.example'] }, 'email'],
  ])('refuses %j naming %s', (raw, field) => {
    const r = checkReport(raw as Record<string, unknown>);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.field).toBe(field);
      expect(r.message.startsWith(`${field}: `)).toBe(true);
    }
  });

  it('reads host and alias of a short link', () => {
    expect(shortLinkParts('HTTPS://S.Example:8443/AbC/')).toEqual({
      host: 's.example',
      alias: 'AbC',
    });
    expect(shortLinkParts('https://u:p@s.example/abc')).toBeNull();
  });

  it('signs form tokens that expire and cannot be forged', () => {
    const now = 1_800_000_000_000;
    const t = formToken('secret-1', now);
    expect(validFormToken('secret-1', t, now + 1000)).toBe(true);
    expect(validFormToken('secret-2', t, now)).toBe(false);
    expect(validFormToken('secret-1', t, now + 3601_000)).toBe(false);
    expect(
      validFormToken(
        'secret-1',
        t.replace(/.$/, (c) => (c === '0' ? '1' : '0')),
        now,
      ),
    ).toBe(false);
    expect(validFormToken('secret-1', undefined, now)).toBe(false);
  });

  it('hashes addresses without keeping them', () => {
    const h = reporterHash('s', '203.0.113.9');
    expect(h).toMatch(/^[0-9a-f]{64}$/);
    expect(h).not.toContain('203');
    expect(reporterHash('s', '203.0.113.9')).toBe(h);
  });
});
