import { appLinkProblem, httpUrlProblem, isHttpUrl, storedUrl } from '@app/common';

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

  it('isHttpUrl: a host of letters, digits, - and . only (after IDNA), no empty label', () => {
    for (const ok of ['https://a-b.example./', 'https://FINE.example../x', 'https://1.2.3.4/'])
      expect([ok, isHttpUrl(ok)]).toEqual([ok, true]);
    for (const bad of [
      'https://a_b.example/',
      'https://a*b.example/',
      'https://a"b.example/',
      "https://a'b.example/",
      'https://a;b.example/',
      'https://a..b.example/',
      'https://.a.example/',
      'https://a$b.example/',
    ])
      expect([bad, httpUrlProblem(bad)]).toEqual([
        bad,
        expect.stringMatching(/^must have a host of/),
      ]);
  });

  it('appLinkProblem: an allowlist of schemes per platform, in any letter case', () => {
    for (const ok of [
      'https://example.com/app',
      'itms-apps://apps.apple.com/app/id1',
      'market://details?id=com.example',
      'myapp://item/1',
      'fb+x.y-z://open',
    ]) {
      expect([ok, appLinkProblem(ok, 'apple')]).toEqual([ok, null]);
      expect([ok, appLinkProblem(ok, 'google')]).toEqual([ok, null]);
    }
    const intent =
      'intent://open#Intent;scheme=myapp;package=com.example;S.browser_fallback_url=https%3A%2F%2Fexample.com%2F;end';
    expect(appLinkProblem(intent, 'google')).toBeNull();
    expect(appLinkProblem(intent, 'apple')).toMatch(/Android/);
    for (const bad of [
      'JAVASCRIPT:alert(1)',
      'Data:text/html,<script>x</script>',
      'View-Source:https://example.com/',
      'vbscript:msgbox',
      'FILE:///etc/passwd',
      'blob:https://example.com/1',
      'about:blank',
      'chrome://settings',
      'filesystem:https://example.com/x',
      'jar:https://example.com/a.jar!/',
      'ms-msdt:/id PCWDiagnostic',
      'X-Safari-https://example.com/',
      'intent://x#Intent;scheme=javascript;end',
      'intent://x#Intent;S.browser_fallback_url=javascript%3Aalert(1);end',
      'intent://x#Intent;S.browser_fallback_url=https%3A%2F%2Fa_b.example%2F;end',
      'https://a_b.example/',
      'HTTP:example.com',
      'ｊavascript:alert(1)',
      'my app://x',
      '',
    ])
      expect([bad, appLinkProblem(bad, 'google')]).toEqual([bad, expect.any(String)]);
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
