import { fromRow, ResolvedLink, ResolveLinkRow, toCached, toHost } from './resolved-link';

const row: ResolveLinkRow = {
  id: 7,
  user_id: 3,
  kind: 'link',
  alias: 'abc1234',
  url: 'https://example.com/landing',
  domain_id: null,
  type: 'direct',
  title: 'Landing',
  expires_at: null,
  protected: false,
  pixels: [],
  splash: null,
  overlay: null,
  bio: null,
  geo_targets: null,
  device_targets: null,
  language_targets: null,
  deep_link: null,
  parameters: null,
  forward_query: false,
  meta_title: null,
  meta_description: null,
  meta_image: null,
  click_limit: null,
  expiration_redirect: null,
  disabled: false,
};

describe('toCached / toHost: one object shape whatever the source', () => {
  it('a link from Postgres and the same link back from Redis have the same keys, in the same order', () => {
    const fromDb = toCached(fromRow(row));
    // what Redis holds: the JSON without the prebuilt fields, keys in another order, an
    // undefined field left out (as JSON.stringify does)
    const { redirectHeaders, screenedAt, blocked, ...stored } = fromDb;
    void [redirectHeaders, screenedAt, blocked];
    const reordered = Object.fromEntries(Object.entries(stored).reverse()) as Partial<ResolvedLink>;
    delete reordered.deepLink;
    const fromRedis = toCached(JSON.parse(JSON.stringify(reordered)) as ResolvedLink);
    expect(Object.keys(fromRedis)).toEqual(Object.keys(fromDb));
    expect(fromRedis).toEqual(fromDb);
    expect(Object.values(fromRedis)).not.toContain(undefined);
    expect(fromDb.redirectHeaders).toEqual(expect.arrayContaining(['Location', row.url]));
  });

  it('a host from Redis has the keys of one from Postgres', () => {
    const fromDb = toHost({
      id: 1,
      redirectRoot: '',
      redirect404: 'https://x.test/',
      verified: true,
    });
    const fromRedis = toHost(
      JSON.parse('{"verified":true,"redirect404":"https://x.test/","id":1}'),
    );
    expect(Object.keys(fromRedis)).toEqual(Object.keys(fromDb));
    expect(fromRedis).toEqual(fromDb);
  });
});
