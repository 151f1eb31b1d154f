import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import {
  csvFields,
  detectFeedFormat,
  FeedEntry,
  feedUrlKey,
  lookupFields,
  parseFeed,
  PARSE_BATCH,
} from './feed-format';
import { parseThreatFeeds } from './threat-feeds';

const FIXTURES = join(__dirname, '../../../../test/fixtures/feeds');
const fixture = (name: string) => readFileSync(join(FIXTURES, name), 'utf8');

async function parse(text: string) {
  const all: FeedEntry[] = [];
  const format = detectFeedFormat(text);
  const counts = await parseFeed(text, format, async (batch) => {
    all.push(...batch);
  });
  return { format, counts, entries: all.map((e) => `${e.kind} ${e.key} ${e.type}`) };
}

describe('threat feed formats', () => {
  it('URLhaus CSV: the url column, the threat as the type, comments skipped', async () => {
    expect(await parse(fixture('urlhaus.csv'))).toEqual({
      format: 'urlhaus-csv',
      counts: { entries: 3, skipped: 0 },
      entries: [
        'url feedtag-uh1.test/bins/x86 malware',
        'url feedtag-uh2.test:8443/download/payload.exe?id=7 malware',
        'url 198.51.100.23/i malware',
      ],
    });
  });

  it('URLhaus plain text: URLs and bare hosts, malware', async () => {
    expect(await parse(fixture('urlhaus.txt'))).toEqual({
      format: 'urlhaus-text',
      counts: { entries: 3, skipped: 0 },
      entries: [
        'url feedtag-ut1.test/sh malware',
        'url feedtag-ut2.test/a/b.apk malware',
        'host feedtag-uthost.test malware',
      ],
    });
  });

  it('PhishTank CSV: by its header, quoted fields with commas', async () => {
    expect(await parse(fixture('phishtank.csv'))).toEqual({
      format: 'phishtank-csv',
      counts: { entries: 2, skipped: 0 },
      entries: [
        'url feedtag-pt1.test/login.php?acct=1 phishing',
        'url feedtag-pt2.test/secure,update/ phishing',
      ],
    });
  });

  it('PhishTank JSON: the url of each object, normalised (percent-escapes, case)', async () => {
    expect(await parse(fixture('phishtank.json'))).toEqual({
      format: 'phishtank-json',
      counts: { entries: 2, skipped: 0 },
      entries: [
        'url feedtag-pj1.test/verify/ phishing',
        'url xn--bcher-kva.feedtag-pj2.test/account phishing',
      ],
    });
  });

  it('OpenPhish: a plain list without URLhaus comments is phishing', async () => {
    expect(await parse(fixture('openphish.txt'))).toEqual({
      format: 'openphish',
      counts: { entries: 4, skipped: 0 },
      entries: [
        'url feedtag-op1.test/wp-admin/signin/ phishing',
        'url feedtag-op2.test/index.html phishing',
        'host feedtag-ophost.test phishing',
        'url sites.feedtag-op3.test/view/secure-login phishing',
      ],
    });
  });

  it('skips what it does not understand and hands entries over in batches', async () => {
    const lines = ['not a url at all', 'javascript:alert(1)', ''];
    for (let i = 0; i < PARSE_BATCH + 3; i++) lines.push(`https://h${i}.example/p`);
    const sizes: number[] = [];
    const counts = await parseFeed(lines.join('\n'), 'openphish', async (b) => {
      sizes.push(b.length);
    });
    expect(counts).toEqual({ entries: PARSE_BATCH + 3, skipped: 2 });
    expect(sizes).toEqual([PARSE_BATCH, 3]);
  });

  it('csvFields: quotes, doubled quotes, empty fields', () => {
    expect(csvFields('a,"b,c","d""e",,f')).toEqual(['a', 'b,c', 'd"e', '', 'f']);
    expect(csvFields('"x"')).toEqual(['x']);
  });

  it('feedUrlKey: one key for every spelling of a URL, none for other schemes', () => {
    const key = 'bad.example/login?x=1';
    for (const u of [
      'http://bad.example/login?x=1',
      'HTTPS://BAD.EXAMPLE./login?x=1#frag',
      'https://bad.example:443/%6cogin?x=1',
      'bad.example/login?x=1',
    ])
      expect(feedUrlKey(u)).toBe(key);
    expect(feedUrlKey('http://bad.example:8080/')).toBe('bad.example:8080/');
    expect(feedUrlKey('ftp://bad.example/x')).toBeNull();
    expect(feedUrlKey('http://')).toBeNull();
  });

  it('lookupFields: hosts with their parent domains, the exact URL, an intent fallback', () => {
    expect(lookupFields('https://a.b.example/p?q')).toEqual([
      'h:a.b.example',
      'h:b.example',
      'u:a.b.example/p?q',
    ]);
    const intent =
      'intent://x#Intent;scheme=app;S.browser_fallback_url=https%3A%2F%2Fevil.example%2Fp;end';
    expect(lookupFields(intent)).toEqual(
      expect.arrayContaining(['h:evil.example', 'u:evil.example/p']),
    );
  });

  it('parseThreatFeeds: names from name=, a file base name or a URL host; unique', () => {
    expect(
      parseThreatFeeds([
        'urlhaus=https://urlhaus.abuse.ch/downloads/csv_recent/',
        '/data/openphish.txt',
        'https://www.phishtank.com/data/KEY/online-valid.json',
        '/other/openphish.csv',
        'https://x.example/feed?a=b',
      ]),
    ).toEqual([
      { name: 'urlhaus', source: 'https://urlhaus.abuse.ch/downloads/csv_recent/' },
      { name: 'openphish', source: '/data/openphish.txt' },
      { name: 'phishtank.com', source: 'https://www.phishtank.com/data/KEY/online-valid.json' },
      { name: 'openphish-2', source: '/other/openphish.csv' },
      { name: 'x.example', source: 'https://x.example/feed?a=b' },
    ]);
  });
});
