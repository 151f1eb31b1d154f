import type { AppConfig } from '@app/config';
import type { RedisService } from '@app/redis';

import { ThreatFeeds } from './threat-feeds';

/**
 * A stand-in RedisService: each feed's live hash a map (field → type); records every command
 * (HMGET alone, or a pipeline of HMGETs) as the connection would send it.
 */
function fakeRedis(hashes: Record<string, Record<string, string>>, opts: { fail?: Error } = {}) {
  const sent: Array<{ via: 'hmget' | 'pipeline'; keys: string[]; fields: string[][] }> = [];
  const answer = (key: string, fields: string[]) =>
    fields.map((f) => hashes[key.replace(/^t:\{tf:(.+)\}:live$/, '$1')]?.[f] ?? null);
  const client = {
    hmget: (key: string, ...fields: string[]) => {
      sent.push({ via: 'hmget', keys: [key], fields: [fields] });
      return opts.fail ? Promise.reject(opts.fail) : Promise.resolve(answer(key, fields));
    },
    pipeline: () => {
      const queued: Array<[string, string[]]> = [];
      const p = {
        hmget: (key: string, ...fields: string[]) => {
          queued.push([key, fields]);
          return p;
        },
        exec: () => {
          sent.push({
            via: 'pipeline',
            keys: queued.map(([k]) => k),
            fields: queued.map(([, f]) => f),
          });
          return opts.fail
            ? Promise.reject(opts.fail)
            : Promise.resolve(queued.map(([k, f]) => [null, answer(k, f)]));
        },
      };
      return p;
    },
  };
  const redis = {
    client,
    key: (...parts: string[]) => `t:${parts.join(':')}`,
    slotKey: (tag: string[], ...parts: string[]) => `t:{${tag.join(':')}}:${parts.join(':')}`,
  } as unknown as RedisService;
  return { redis, sent };
}

const config = (feeds: string[]) => ({ THREAT_FEEDS: feeds }) as unknown as AppConfig;

describe('ThreatFeeds lookups', () => {
  const hashes = {
    one: { 'h:bad.example': 'phishing' },
    two: { 'h:bad.example': 'malware', 'u:evil.example/x?y=1': 'malware' },
  };

  it('answers each destination with the first feed that flags one of its fields', async () => {
    const { redis } = fakeRedis(hashes);
    const feeds = new ThreatFeeds(redis, config(['one=/f/1.txt', 'two=/f/2.txt']));
    await expect(
      feeds.matchEach([
        'https://www.BAD.example./login',
        'https://fine.example/',
        'https://EVIL.example/%78?y=1#f',
      ]),
    ).resolves.toEqual([
      { source: 'one', type: 'phishing' },
      null,
      { source: 'two', type: 'malware' },
    ]);
  });

  it('sends the lookups of one turn together: one pipeline of one HMGET per feed, each field once', async () => {
    const { redis, sent } = fakeRedis(hashes);
    const feeds = new ThreatFeeds(redis, config(['one=/f/1.txt', 'two=/f/2.txt']));
    const answers = await Promise.all([
      feeds.match('https://a.bad.example/'),
      feeds.matchEach(['https://fine.example/', 'https://a.bad.example/']),
      feeds.match('https://evil.example/x?y=1'),
    ]);
    expect(answers).toEqual([
      { source: 'one', type: 'phishing' },
      [null, { source: 'one', type: 'phishing' }],
      { source: 'two', type: 'malware' },
    ]);
    expect(sent).toHaveLength(1);
    expect(sent[0].via).toBe('pipeline');
    expect(sent[0].keys).toEqual(['t:{tf:one}:live', 't:{tf:two}:live']);
    expect(sent[0].fields[0]).toEqual([
      'h:a.bad.example',
      'h:bad.example',
      'u:a.bad.example/',
      'h:fine.example',
      'u:fine.example/',
      'h:evil.example',
      'u:evil.example/x?y=1',
    ]);
  });

  it('one feed: one plain HMGET; the next turn sends its own', async () => {
    const { redis, sent } = fakeRedis(hashes);
    const feeds = new ThreatFeeds(redis, config(['one=/f/1.txt']));
    expect(await feeds.match('https://bad.example/')).toEqual({ source: 'one', type: 'phishing' });
    expect(await feeds.match('https://fine.example/')).toBeNull();
    expect(sent.map((s) => s.via)).toEqual(['hmget', 'hmget']);
  });

  it('a turn past 2 000 fields goes out at once; what follows waits for the next HMGET', async () => {
    const { redis, sent } = fakeRedis(hashes);
    const feeds = new ThreatFeeds(redis, config(['one=/f/1.txt']));
    const many = Array.from({ length: 1000 }, (_, i) => `https://a${i}.example/`);
    const first = feeds.matchEach(many);
    expect(sent).toHaveLength(1); // 2 000 fields: sent without waiting for the turn's end
    const second = feeds.match('https://bad.example/');
    const [a, b] = await Promise.all([first, second]);
    expect(a).toEqual(many.map(() => null));
    expect(b).toEqual({ source: 'one', type: 'phishing' });
    expect(sent.map((s) => s.fields[0].length)).toEqual([2000, 2]);
  });

  it('Redis failing: not flagged (creation goes on); the re-scan gets the error', async () => {
    const { redis } = fakeRedis(hashes, { fail: new Error('down') });
    const feeds = new ThreatFeeds(redis, config(['one=/f/1.txt', 'two=/f/2.txt']));
    await expect(feeds.matchEach(['https://bad.example/', 'https://x.example/'])).resolves.toEqual([
      null,
      null,
    ]);
    await expect(feeds.matchMany(['https://bad.example/'])).rejects.toThrow('down');
  });

  it('matchMany: the flagged ones by URL, as match answers them', async () => {
    const { redis, sent } = fakeRedis(hashes);
    const feeds = new ThreatFeeds(redis, config(['two=/f/2.txt', 'one=/f/1.txt']));
    const flagged = await feeds.matchMany([
      'https://bad.example/a',
      'https://fine.example/',
      'http://evil.example/x?y=1',
      'https://bad.example/a',
    ]);
    expect([...flagged]).toEqual([
      ['https://bad.example/a', { source: 'two', type: 'malware' }],
      ['http://evil.example/x?y=1', { source: 'two', type: 'malware' }],
    ]);
    expect(sent).toHaveLength(1);
  });

  it('no feeds: nothing is sent', async () => {
    const { redis, sent } = fakeRedis(hashes);
    const feeds = new ThreatFeeds(redis, config([]));
    expect(feeds.enabled).toBe(false);
    await expect(feeds.matchEach(['https://bad.example/'])).resolves.toEqual([null]);
    expect(sent).toEqual([]);
  });
});
