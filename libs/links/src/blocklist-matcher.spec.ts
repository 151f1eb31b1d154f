import {
  BlocklistMatcher,
  canonicalHost,
  canonicalText,
  normalizeEntry,
  parseBlocklistFile,
} from './blocklist-matcher';

describe('blocklist entries', () => {
  it.each([
    ['bad.example', 'bad.example'],
    ['BAD.Example.', 'bad.example'],
    ['https://bad.example/path?x=1', 'bad.example'],
    ['keyword:Casino', 'keyword:casino'],
    ['KEYWORD: phish', 'keyword:phish'],
    ['xn--bcher-kva.example', 'xn--bcher-kva.example'],
    ['bücher.example', 'xn--bcher-kva.example'],
    ['bad.example...', 'bad.example'],
    ['keyword:ＣＡＳＩＮＯ', 'keyword:casino'],
  ])('%p is stored as %p', (raw, stored) => expect(normalizeEntry(raw)).toBe(stored));

  it.each([
    '',
    'localhost',
    'keyword:',
    'keyword:a',
    'keyword:two words',
    'has space.example',
    'bad..example',
    '.bad.example',
    'a'.repeat(300),
  ])('%p is refused', (raw) => expect(normalizeEntry(raw)).toBeNull());

  it('reads a file, skipping blank lines and comments, reporting bad lines', () => {
    expect(
      parseBlocklistFile('# spam\nbad.example\n\nkeyword:casino # gambling\nnot valid here\n'),
    ).toEqual({
      entries: ['bad.example', 'keyword:casino'],
      bad: [5],
    });
  });
});

describe('BlocklistMatcher', () => {
  const m = new BlocklistMatcher(['bad.example', 'keyword:casino']);

  it('blocks a host and its subdomains, not look-alikes', () => {
    expect(m.match('https://bad.example/')).toBe('bad.example');
    expect(m.match('http://www.BAD.example./x')).toBe('bad.example');
    expect(m.match('https://a.b.bad.example/')).toBe('bad.example');
    expect(m.match('https://notbad.example/')).toBeNull();
    expect(m.match('https://bad.example.org/')).toBeNull();
  });

  it('blocks URLs containing a keyword anywhere, case-insensitively', () => {
    expect(m.match('https://fine.example/best-CASINO-deals')).toBe('keyword:casino');
    expect(m.match('https://casino.fine.example/')).toBe('keyword:casino');
    expect(m.match('https://fine.example/')).toBeNull();
  });

  it.each([
    ['percent-encoded', 'https://%62ad.example/'],
    ['double percent-encoded', 'myapp://%2562ad.example/'],
    ['full-width (NFKC)', 'https://ｂａｄ.example/'],
    ['full-width in an app scheme', 'myapp://ｂａｄ.example/'],
    ['upper case with trailing dots', 'https://BAD.example../'],
    ['upper case in an app scheme', 'MyApp://WWW.BAD.EXAMPLE/x'],
    ['an intent host', 'intent://BAD.example/p#Intent;scheme=https;end'],
    [
      'an intent fallback',
      'intent://x#Intent;scheme=myapp;S.browser_fallback_url=https%3A%2F%2Fsub.%2562ad.example%2F;end',
    ],
    ['a backslash the URL parser reads as a slash', 'https://bad.example\\@fine.example/'],
  ])('blocks the host spelled %s', (_, url) => expect(m.match(url)).toBe('bad.example'));

  it.each([
    ['percent-encoded', 'https://fine.example/%63asino'],
    ['double percent-encoded', 'https://fine.example/%2563asino'],
    ['full-width', 'https://fine.example/ｃａｓｉｎｏ'],
    [
      'in an intent fallback',
      'intent://x#Intent;S.browser_fallback_url=https%3A%2F%2Ff.example%2F%2563asino;end',
    ],
  ])('finds a keyword spelled %s', (_, url) => expect(m.match(url)).toBe('keyword:casino'));

  it('leaves look-alikes alone', () => {
    for (const url of [
      'https://fine.example/?next=https%3A%2F%2Fnotbad.example',
      'myapp://badexample/',
      'intent://x#Intent;S.browser_fallback_url=https%3A%2F%2Ffine.example%2F;end',
      'not a url',
    ])
      expect([url, m.match(url)]).toEqual([url, null]);
  });

  it('an empty list blocks nothing', () => {
    expect(new BlocklistMatcher([]).match('https://bad.example/')).toBeNull();
  });
});

describe('destination normaliser', () => {
  it('decodes percent-escapes repeatedly and tolerantly, then NFKC and lower case', () => {
    expect(canonicalText('https://%2545vil.example/')).toBe('https://evil.example/');
    expect(canonicalText('HTTPS://ＥＶＩＬ.example/%E2%82')).toBe('https://evil.example/\ufffd');
    expect(canonicalText('100%')).toBe('100%');
  });

  it('reads the host of every scheme as IDNA, lower case, without trailing dots or empty labels', () => {
    expect(canonicalHost('https://EVIL.example../')).toBe('evil.example');
    expect(canonicalHost('myapp://EVIL..example./')).toBe('evil.example');
    expect(canonicalHost('myapp://bücher.example/')).toBe('xn--bcher-kva.example');
    expect(canonicalHost('mailto:x@evil.example')).toBeNull();
    expect(canonicalHost('no url')).toBeNull();
  });
});
