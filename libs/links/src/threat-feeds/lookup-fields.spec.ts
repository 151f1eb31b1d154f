import { intentFallbacks, percentDecode } from '@app/common';

import { canonicalHost, destinationSpellings } from '../blocklist-matcher';
import { feedUrlKey, lookupFields } from './feed-format';

/*
 * destinationSpellings reads each spelling once and gives the blocklist and the threat feeds the
 * same answer (DestinationPolicy computes it once for both). These are the readings it replaced,
 * written out the long way (every spelling parsed on its own, the exact-URL key parsed again):
 * whatever the spelling, the new ones must answer exactly the same.
 */
function oldCanonicalText(value: string): string {
  let text = value;
  for (let i = 0; i < 4 && text.includes('%'); i++) {
    const next = percentDecode(text);
    if (next === text) break;
    text = next;
  }
  return text.normalize('NFKC').toLowerCase().normalize('NFKC');
}

function oldCanonicalHost(url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  let host = parsed.hostname;
  if (!host) return null;
  if (!['http:', 'https:', 'ws:', 'wss:', 'ftp:', 'file:'].includes(parsed.protocol)) {
    try {
      host = new URL(`http://${oldCanonicalText(host)}`).hostname;
    } catch {
      host = host.toLowerCase();
    }
  }
  host = host.toLowerCase().split('.').filter(Boolean).join('.');
  return host || null;
}

function oldFeedUrlKey(raw: string): string | null {
  let value = raw.trim();
  if (!value || /\s/.test(value)) return null;
  if (!/^[a-z][a-z0-9+.-]*:/i.test(value)) value = `http://${value}`;
  const text = oldCanonicalText(value);
  let parsed: URL;
  try {
    parsed = new URL(text);
  } catch {
    return null;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return null;
  const host = oldCanonicalHost(text);
  if (!host) return null;
  return `${host}${parsed.port ? `:${parsed.port}` : ''}${parsed.pathname}${parsed.search}`;
}

function oldSpellings(url: string): { texts: string[]; hosts: string[] } {
  const texts: string[] = [];
  const hosts: string[] = [];
  for (const u of [url, ...intentFallbacks(url)]) {
    const text = oldCanonicalText(u);
    texts.push(u.toLowerCase(), text);
    for (const h of [oldCanonicalHost(u), oldCanonicalHost(text)])
      if (h !== null && !hosts.includes(h)) hosts.push(h);
  }
  return { texts, hosts };
}

function oldLookupFields(url: string): string[] {
  const fields = new Set<string>();
  for (const host of oldSpellings(url).hosts) {
    let h = host.replace(/^\[|\]$/g, '');
    while (h.includes('.')) {
      fields.add(`h:${h}`);
      h = h.slice(h.indexOf('.') + 1);
    }
  }
  for (const u of [url, ...intentFallbacks(url)]) {
    if (!/^https?:/i.test(u)) continue;
    const key = oldFeedUrlKey(u);
    if (key) fields.add(`u:${key}`);
  }
  return [...fields];
}

const fallback = (target: string) =>
  `intent://scan/#Intent;scheme=zxing;package=com.example;S.browser_fallback_url=${encodeURIComponent(target)};end`;

const SPELLINGS = [
  'https://example.com/feeds/1?ref=bench',
  'https://a.b.example/p?q',
  'HTTPS://BAD.EXAMPLE./login?x=1#frag',
  'https://bad.example:443/%6cogin?x=1',
  'http://bad.example:8080/',
  'https://%62ad.example/x',
  'https://%2562ad.example/x',
  'https://ｂａｄ.example/ｌｏｇｉｎ',
  'https://bücher.example/konto',
  'https://xn--bcher-kva.example/konto',
  'https://EVIL..example../a/../b?c=%2F#x',
  'http://198.51.100.23/i',
  'http://[2001:db8::1]/x',
  'https://user:pass@bad.example/p',
  'https://localhost/x',
  'https://bad.example/a b',
  ' https://bad.example/trimmed ',
  'https://bad.example/\u00a0nbsp',
  'https://bad.example/%E2%82',
  'myapp://EVIL..example./path',
  'myapp://bücher.example/',
  'mailto:x@evil.example',
  'intent://x#Intent;scheme=https;end',
  'intent://x#Intent;scheme=app;S.browser_fallback_url=https%3A%2F%2Fevil.example%2Fp;end',
  fallback('https://EVIL.example./Login?x=1'),
  fallback('https://%65vil.example/p'),
  fallback('http://same.example/p'),
  `https://same.example/p?next=${encodeURIComponent(fallback('http://same.example/p'))}`,
  'no url',
  '',
];

describe('destination spellings, read once for the blocklist and the threat feeds', () => {
  it.each(SPELLINGS)('%j: the same texts, hosts, lookup fields and URL keys as before', (url) => {
    const now = destinationSpellings(url);
    const before = oldSpellings(url);
    expect({ texts: now.texts, hosts: now.hosts }).toEqual(before);
    expect(lookupFields(url)).toEqual(oldLookupFields(url));
    expect(lookupFields('', now)).toEqual(oldLookupFields(url));
    expect(feedUrlKey(url)).toBe(oldFeedUrlKey(url));
    expect(canonicalHost(url)).toBe(oldCanonicalHost(url));
  });

  it('keeps the URL keys of every http(s) spelling, once each', () => {
    expect(destinationSpellings(fallback('https://EVIL.example./Login?x=1')).urlKeys).toEqual([
      'evil.example/login?x=1',
    ]);
    expect(destinationSpellings('https://a.example/x').urlKeys).toEqual(['a.example/x']);
    expect(destinationSpellings('myapp://a.example/x').urlKeys).toEqual([]);
  });
});
