import { InvalidFieldError } from '@app/common';

import { isHttpUrl } from '@app/common';

import { normalizeRedirectUrl, parseBrandedDomain } from './branded-domain';

describe('parseBrandedDomain', () => {
  it.each([
    ['https://go.example.com', 'https://go.example.com', 'go.example.com'],
    ['http://Example.COM', 'http://example.com', 'example.com'],
    ['HTTPS://brand.example.org/', 'https://brand.example.org', 'brand.example.org'],
    ['https://example.com.', 'https://example.com', 'example.com'],
    ['https://bücher.de', 'https://xn--bcher-kva.de', 'xn--bcher-kva.de'],
    ['https://a-b.c-d.io', 'https://a-b.c-d.io', 'a-b.c-d.io'],
  ])('accepts %p', (input, domain, host) => {
    expect(parseBrandedDomain(input)).toEqual({ domain, host });
  });

  it.each([
    ['example.com', /http:\/\/host or https:\/\/host/],
    ['ftp://example.com', /http:\/\/host or https:\/\/host/],
    ['//example.com', /http:\/\/host or https:\/\/host/],
    ['http:\\\\example.com', /http:\/\/host or https:\/\/host/],
    ['https://example.com/path', /no path, query or fragment/],
    ['https://example.com?x=1', /no path, query or fragment/],
    ['https://example.com#top', /no path, query or fragment/],
    ['https://example.com//', /no path, query or fragment/],
    ['https://user:pw@example.com', /credentials/],
    ['https://user@example.com', /credentials/],
    ['https://example.com:8080', /port/],
    ['https://example.com:443', /port/],
    ['https://127.0.0.1', /IP address/],
    ['https://[::1]', /IP address/],
    ['https://localhost', /valid host name/],
    ['https://', /valid host name/],
    ['https://-bad.example.com', /valid host name/],
    ['https://bad-.example.com', /valid host name/],
    ['https://under_score.example.com', /valid host name/],
    ['https://example.123', /valid host name/],
    ['https://exa mple.com', /spaces/],
    ['https://example.com\n', /spaces/],
    [`https://${'a'.repeat(64)}.com`, /valid host name/],
  ])('rejects %p naming the field', (input, reason) => {
    let error: unknown;
    try {
      parseBrandedDomain(input);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(InvalidFieldError);
    expect((error as InvalidFieldError).message).toMatch(/^domain: /);
    expect((error as InvalidFieldError).message).toMatch(reason);
  });
});

describe('redirect URLs', () => {
  it.each([
    'https://example.com',
    'http://example.com/a?b=c#d',
    'https://localhost:8080/x',
    'https://bücher.de/ü',
  ])('accepts %p', (url) => expect(isHttpUrl(url)).toBe(true));

  it.each([
    '',
    'ftp://x',
    'example.com',
    'javascript:alert(1)',
    'https://',
    'https://u:p@example.com',
    'https://exa mple.com',
    'http://a\n.com',
    '/relative',
  ])('rejects %p', (url) => expect(isHttpUrl(url)).toBe(false));

  it('stores ASCII as sent and non-ASCII as its ASCII serialisation', () => {
    expect(normalizeRedirectUrl('')).toBe('');
    expect(normalizeRedirectUrl('https://Example.com/Path?q=1')).toBe(
      'https://Example.com/Path?q=1',
    );
    expect(normalizeRedirectUrl('https://bücher.de/ü')).toBe('https://xn--bcher-kva.de/%C3%BC');
  });
});
