import { BlocklistMatcher, normalizeEntry, parseBlocklistFile } from './blocklist-matcher';

describe('blocklist entries', () => {
  it.each([
    ['bad.example', 'bad.example'],
    ['BAD.Example.', 'bad.example'],
    ['https://bad.example/path?x=1', 'bad.example'],
    ['keyword:Casino', 'keyword:casino'],
    ['KEYWORD: phish', 'keyword:phish'],
    ['xn--bcher-kva.example', 'xn--bcher-kva.example'],
    ['bücher.example', 'xn--bcher-kva.example'],
  ])('%p is stored as %p', (raw, stored) => expect(normalizeEntry(raw)).toBe(stored));

  it.each([
    '',
    'localhost',
    'keyword:',
    'keyword:a',
    'keyword:two words',
    'has space.example',
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

  it('an empty list blocks nothing', () => {
    expect(new BlocklistMatcher([]).match('https://bad.example/')).toBeNull();
  });
});
