import { isHttpUrl, storedUrl } from '@app/common';

import { hostOfDomainRef, likePattern } from './link-input';

describe('link input', () => {
  it('isHttpUrl: absolute http(s) with a host only', () => {
    for (const ok of [
      'http://a.b',
      'https://example.com/x?y=1#z',
      'HTTPS://EXAMPLE.COM',
      'http://localhost:8080/',
      'https://例え.jp/パス',
      'http://[::1]/',
    ]) {
      expect([ok, isHttpUrl(ok)]).toEqual([ok, true]);
    }
    for (const bad of [
      '',
      'example.com',
      '//example.com',
      'ftp://example.com',
      'javascript:alert(1)',
      'data:text/html,x',
      'https://',
      'https://exa mple.com',
      'https://example.com/\n',
      'https://user:pw@example.com/',
      'https://user@example.com/',
      `https://example.com/${'a'.repeat(2048)}`,
      'mailto:a@b.c',
    ]) {
      expect([bad, isHttpUrl(bad)]).toEqual([bad, false]);
    }
  });

  it('storedUrl keeps ASCII as sent and percent-encodes the rest', () => {
    expect(storedUrl('https://example.com/a?b=c')).toBe('https://example.com/a?b=c');
    expect(storedUrl('https://example.com')).toBe('https://example.com');
    expect(storedUrl('https://example.com/ü')).toBe('https://example.com/%C3%BC');
    expect(storedUrl('https://bücher.de/')).toBe('https://xn--bcher-kva.de/');
  });

  it('hostOfDomainRef reads a host name or an http(s) URL without path', () => {
    expect(hostOfDomainRef('Brand.Example')).toBe('brand.example');
    expect(hostOfDomainRef('https://brand.example')).toBe('brand.example');
    expect(hostOfDomainRef('http://brand.example/')).toBe('brand.example');
    expect(hostOfDomainRef(' brand.example. ')).toBe('brand.example');
    for (const bad of [
      'https://brand.example/path',
      'ftp://brand.example',
      'brand.example:8080',
      'https://a@brand.example',
      '',
      'https://b.example?x=1',
      '::',
    ]) {
      expect([bad, hostOfDomainRef(bad)]).toEqual([bad, null]);
    }
  });

  it('likePattern escapes wildcards and backslashes', () => {
    expect(likePattern('abc')).toBe('%abc%');
    expect(likePattern('50%_off\\')).toBe('%50\\%\\_off\\\\%');
  });
});
