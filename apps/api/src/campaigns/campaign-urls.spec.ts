import { listUrl, rotatorUrl, slugify } from './campaign-urls';

describe('campaign URLs', () => {
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
    expect(rotatorUrl('http://s.test', 'promo-1')).toBe('http://s.test/r/promo-1');
    expect(rotatorUrl('http://s.test', null)).toBe(false);
    expect(rotatorUrl('http://s.test', '')).toBe(false);
  });

  it('list is <base>/u/<slug or slugified name>-<id>', () => {
    expect(listUrl('http://s.test', { id: 7, name: 'Spring Sale', slug: 'promo' })).toBe(
      'http://s.test/u/promo-7',
    );
    expect(listUrl('http://s.test', { id: 7, name: 'Spring Sale', slug: null })).toBe(
      'http://s.test/u/spring-sale-7',
    );
    expect(listUrl('http://s.test', { id: 8, name: '', slug: null })).toBe(
      'http://s.test/u/campaign-8',
    );
  });
});
