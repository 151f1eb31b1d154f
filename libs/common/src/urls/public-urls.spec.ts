import { AppConfig } from '@app/config';

import { PublicUrls, slugify } from './public-urls';

const urls = (base: string) => new PublicUrls(Object.assign(new AppConfig(), { PUBLIC_URL: base }));

describe('public URLs', () => {
  it.each([
    ['Black Friday 2024!', 'black-friday-2024'],
    ['  --Summer__Sale--  ', 'summer-sale'],
    ['ALLCAPS', 'allcaps'],
    ['a', 'a'],
    ['Café olé', 'caf-ol'],
    ['', 'campaign'],
    ['!!!', 'campaign'],
    ['日本', 'campaign'],
  ])('slugify(%p) = %p', (name, slug) => {
    expect(slugify(name)).toBe(slug);
  });

  it('rotator is <base>/r/<slug> or false without a slug', () => {
    expect(urls('http://s.test').rotator('promo-1')).toBe('http://s.test/r/promo-1');
    expect(urls('http://s.test').rotator(null)).toBe(false);
    expect(urls('http://s.test').rotator('')).toBe(false);
  });

  it('list is <base>/u/<slug or slugified name>-<id>', () => {
    const u = urls('http://s.test');
    expect(u.campaignList({ id: 7, name: 'Spring Sale', slug: 'promo' })).toBe(
      'http://s.test/u/promo-7',
    );
    expect(u.campaignList({ id: 7, name: 'Spring Sale', slug: null })).toBe(
      'http://s.test/u/spring-sale-7',
    );
    expect(u.campaignList({ id: 8, name: '', slug: null })).toBe('http://s.test/u/campaign-8');
  });

  it('short links live on the branded domain or PUBLIC_URL, trailing slashes trimmed on both', () => {
    const u = urls('http://s.test/');
    expect(u.short('abc')).toBe('http://s.test/abc');
    expect(u.short('abc', null)).toBe('http://s.test/abc');
    expect(u.short('abc', 'https://brand.example/')).toBe('https://brand.example/abc');
    expect(u.short('abc', 'https://brand.example//')).toBe('https://brand.example/abc');
  });

  it("host is PUBLIC_URL's host name: lower case, without port, trailing dot or IPv6 brackets", () => {
    expect(urls('http://Short.Test:3000/').host).toBe('short.test');
    expect(urls('https://s.test./x').host).toBe('s.test');
    expect(urls('http://[::1]:8080').host).toBe('::1');
  });

  it('QR links and images, login links', () => {
    const u = urls('http://s.test');
    expect(u.qr('AbC12345')).toBe('http://s.test/q/AbC12345');
    expect(u.qrImage('AbC12345')).toBe('http://s.test/q/AbC12345.png');
    expect(u.qrImage('AbC12345', 'svg')).toBe('http://s.test/q/AbC12345.svg');
    expect(u.login('tok')).toBe('http://s.test/auth/login/tok');
  });
});
