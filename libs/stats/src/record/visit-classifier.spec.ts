import { fieldCounts, parseField, profileField } from '../keys';
import {
  agentInfo,
  countryCodeOf,
  countryOf,
  dimensions,
  isCountable,
  label,
  languagesOf,
  MAX_HEADER_CHARS,
  referrerHost,
  socialNetwork,
} from './visit-classifier';

const CHROME =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';
const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1';

describe('visit classification', () => {
  it('counts browser GETs, not HEAD, bots, preview fetchers or empty user agents', () => {
    expect(isCountable('GET', CHROME)).toBe(true);
    expect(isCountable('POST', CHROME)).toBe(true);
    expect(isCountable('HEAD', CHROME)).toBe(false);
    expect(isCountable('OPTIONS', CHROME)).toBe(false);
    expect(isCountable('GET', undefined)).toBe(false);
    expect(isCountable('GET', '   ')).toBe(false);
    for (const bot of [
      'facebookexternalhit/1.1',
      'Twitterbot/1.0',
      'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)',
      'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
      'WhatsApp/2.23.20.0',
      'curl/8.4.0',
      'LinkedInBot/1.0 (compatible; Mozilla/5.0; Apache-HttpClient +http://www.linkedin.com)',
      'TelegramBot (like TwitterBot)',
    ]) {
      expect([bot, isCountable('GET', bot)]).toEqual([bot, false]);
    }
  });

  it('reduces the referrer to its host', () => {
    expect(referrerHost(undefined)).toBe('Direct');
    expect(referrerHost('not a url')).toBe('Direct');
    expect(referrerHost('https://www.Example.com/a?b=c')).toBe('example.com');
    expect(referrerHost('android-app://com.slack/')).toBe('com.slack');
  });

  it('maps Facebook, X and LinkedIn (and subdomains) to network01..03', () => {
    expect(socialNetwork('facebook.com')).toBe('network01');
    expect(socialNetwork('l.facebook.com')).toBe('network01');
    expect(socialNetwork('t.co')).toBe('network02');
    expect(socialNetwork('x.com')).toBe('network02');
    expect(socialNetwork('linkedin.com')).toBe('network03');
    expect(socialNetwork('lnkd.in')).toBe('network03');
    expect(socialNetwork('notfacebook.com')).toBeNull();
    expect(socialNetwork('example.com')).toBeNull();
  });

  it('looks countries up offline and degrades to Unknown', () => {
    expect(countryOf('8.8.8.8')).toBe('United States');
    expect(countryOf('::ffff:8.8.8.8')).toBe('United States');
    expect(countryOf('127.0.0.1')).toBe('Unknown');
    expect(countryOf('10.1.2.3')).toBe('Unknown');
    expect(countryOf('garbage')).toBe('Unknown');
  });

  it('derives every dimension of a visit', () => {
    expect(
      dimensions('8.8.8.8', IPHONE, 'https://m.facebook.com/story', 'fr-CA, en;q=0.8'),
    ).toEqual({
      country: 'United States',
      referrer: 'm.facebook.com',
      browser: 'Mobile Safari',
      os: 'iOS',
      social: 'network01',
      device: 'mobile',
      language: 'fr',
    });
    expect(dimensions('127.0.0.1', 'weird agent', undefined)).toEqual({
      country: 'Unknown',
      referrer: 'Direct',
      browser: 'Other',
      os: 'Other',
      social: null,
      device: 'desktop',
      language: 'Unknown',
    });
    // the visitor's most preferred language, by q-value
    expect(dimensions('8.8.8.8', IPHONE, undefined, 'en;q=0.5, de').language).toBe('de');
  });

  it('keeps labels safe for counter field names', () => {
    expect(label('a|b\nc', 'x')).toBe('a b c');
    expect(label('', 'x')).toBe('x');
    expect(label('y'.repeat(300), 'x')).toHaveLength(100);
  });

  it('parses pending counter fields', () => {
    expect(parseField('20261122|c')).toEqual({ day: '20261122', dim: 'c', label: '' });
    expect(parseField('20261122|re|example.com')).toEqual({
      day: '20261122',
      dim: 're',
      label: 'example.com',
    });
    expect(parseField('20261122|co|Korea, Republic of')).toEqual({
      day: '20261122',
      dim: 'co',
      label: 'Korea, Republic of',
    });
    expect(parseField('bad')).toBeNull();
  });

  it('writes a visit profile as one field and reads every dimension back', () => {
    const dims = {
      country: 'Korea, Republic of',
      referrer: 'facebook.com',
      browser: 'Mobile Safari',
      os: 'iOS',
      social: 'network01' as const,
      device: 'mobile' as const,
      language: 'ko',
    };
    const field = profileField('20261122', dims);
    expect(field).toBe(
      '20261122|v|Korea, Republic of|facebook.com|Mobile Safari|iOS|network01|mobile|ko',
    );
    expect(fieldCounts(field)).toEqual({
      day: '20261122',
      clicks: true,
      dims: [
        ['co', 'Korea, Republic of'],
        ['re', 'facebook.com'],
        ['br', 'Mobile Safari'],
        ['os', 'iOS'],
        ['so', 'network01'],
        ['de', 'mobile'],
        ['la', 'ko'],
      ],
    });
    // no social network: no `so` entry
    expect(fieldCounts(profileField('20261122', { ...dims, social: null }))?.dims).toHaveLength(6);
    // profiles written before devices and languages were counted
    expect(fieldCounts('20261122|v|France|Direct|Firefox|Linux|')?.dims).toEqual([
      ['co', 'France'],
      ['re', 'Direct'],
      ['br', 'Firefox'],
      ['os', 'Linux'],
    ]);
  });

  it('still reads the single-dimension fields of earlier versions', () => {
    expect(fieldCounts('20261122|c')).toEqual({ day: '20261122', clicks: true, dims: [] });
    expect(fieldCounts('20261122|u')).toEqual({ day: '20261122', clicks: false, dims: [] });
    expect(fieldCounts('20261122|re|t.co')).toEqual({
      day: '20261122',
      clicks: false,
      dims: [['re', 't.co']],
    });
    expect(fieldCounts('20261122|v|too|few')).toBeNull();
    expect(fieldCounts('bad')).toBeNull();
  });
});

describe('devices and languages', () => {
  const AGENTS: Array<[string, string, string, string]> = [
    [
      'iPhone Safari',
      'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1',
      'iphone',
      'mobile',
    ],
    [
      'iPad Safari',
      'Mozilla/5.0 (iPad; CPU OS 16_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.6 Mobile/15E148 Safari/604.1',
      'ipad',
      'tablet',
    ],
    [
      'Android Chrome',
      'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.6099.144 Mobile Safari/537.36',
      'android',
      'mobile',
    ],
    [
      'Android tablet',
      'Mozilla/5.0 (Linux; Android 13; SM-X710) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36',
      'android',
      'tablet',
    ],
    [
      'Windows Chrome',
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36',
      'windows',
      'desktop',
    ],
    [
      'macOS Safari',
      'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_1) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Safari/605.1.15',
      'macos',
      'desktop',
    ],
    [
      'Linux Firefox',
      'Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0',
      'linux',
      'desktop',
    ],
    [
      'ChromeOS',
      'Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36',
      'chromeos',
      'desktop',
    ],
  ];

  it.each(AGENTS)('%s: platform %p? form factor %p?', (_name, ua, platform, formFactor) => {
    const info = agentInfo(ua);
    expect([info.platform, info.formFactor, info.bot]).toEqual([platform, formFactor, false]);
  });

  it('cuts very long user agents before parsing and memoising them', () => {
    const long = `${AGENTS[4][1]} ${'x'.repeat(100_000)}`;
    expect(agentInfo(long).platform).toBe('windows');
    expect(agentInfo(long)).toBe(agentInfo(long.slice(0, MAX_HEADER_CHARS)));
  });

  it('reads Accept-Language in the order of preference, primary codes once each', () => {
    expect(languagesOf('fr-CH, fr;q=0.9, en;q=0.8, de;q=0.7, *;q=0.5')).toEqual(['fr', 'en', 'de']);
    expect(languagesOf('de;q=0.2, en-GB;q=0.9, es')).toEqual(['es', 'en', 'de']);
    expect(languagesOf('EN-us')).toEqual(['en']);
    expect(languagesOf(undefined)).toEqual([]);
    expect(languagesOf('')).toEqual([]);
    expect(languagesOf('*, x-klingon, 123')).toEqual([]);
    expect(languagesOf('en;q=0, fr')).toEqual(['fr']);
  });

  it('gives country codes for public addresses and null for private ones', () => {
    expect(countryCodeOf('8.8.8.8')).toBe('US');
    expect(countryCodeOf('10.0.0.1')).toBeNull();
  });
});
