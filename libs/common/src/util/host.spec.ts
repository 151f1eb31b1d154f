import { hostOfUrl, parseHost } from '@app/common';

describe('Host parsing', () => {
  it('lower-cases and strips the port and a trailing dot', () => {
    expect(parseHost('Short.Test')).toBe('short.test');
    expect(parseHost('short.test:3000')).toBe('short.test');
    expect(parseHost('BRAND.example.:443')).toBe('brand.example');
    expect(parseHost('127.0.0.1:8080')).toBe('127.0.0.1');
  });

  it('reads bracketed IPv6', () => {
    expect(parseHost('[::1]:3000')).toBe('::1');
    expect(parseHost('[2001:DB8::1]')).toBe('2001:db8::1');
    expect(parseHost('[::1')).toBe('');
    expect(parseHost('[nope]')).toBe('');
  });

  it("gives '' for missing or malformed hosts", () => {
    for (const bad of [
      undefined,
      '',
      ':80',
      'a b',
      'host:port',
      'host:123456',
      'a/b',
      'x'.repeat(254),
      'évil.com',
      'a:1:2',
    ]) {
      expect([bad, parseHost(bad)]).toEqual([bad, '']);
    }
  });

  it('hostOfUrl gives the host of PUBLIC_URL', () => {
    expect(hostOfUrl('http://Short.Test:3000/')).toBe('short.test');
    expect(hostOfUrl('https://[::1]:8080')).toBe('::1');
  });
});
