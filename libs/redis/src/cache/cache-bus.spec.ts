import { EventEmitter } from 'node:events';

import type { RedisService } from '../redis.service';
import { CacheBus } from './cache-bus';

/**
 * A stand-in Redis: PUBLISH reaches the subscriber connection on the next turn unless the test
 * drops messages (a subscriber that went deaf without a disconnect).
 */
function fakeRedis() {
  const sub = Object.assign(new EventEmitter(), {
    subscribe: () => Promise.resolve(1),
  });
  const state = { drop: false, published: 0 };
  const client = Object.assign(new EventEmitter(), {
    status: 'ready',
    publish: (channel: string, raw: string) => {
      state.published++;
      if (!state.drop) setImmediate(() => sub.emit('message', channel, raw));
      return Promise.resolve(1);
    },
  });
  const redis = {
    client,
    ready: true,
    key: (...parts: string[]) => ['p', ...parts].join(':'),
    duplicate: () => sub,
  } as unknown as RedisService;
  return { redis, sub, state };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('CacheBus heartbeat', () => {
  let bus: CacheBus;
  let resets: number;
  let env: ReturnType<typeof fakeRedis>;

  beforeEach(async () => {
    env = fakeRedis();
    bus = new CacheBus(env.redis);
    bus.beatMs = 20;
    bus.beatTimeoutMs = 200;
    resets = 0;
    bus.join('c', { drop: () => undefined, reset: () => resets++ });
    bus.onModuleInit();
    env.sub.emit('ready');
    await sleep(5);
    expect(bus.live).toBe(true);
    resets = 0;
  });
  afterEach(() => bus.onModuleDestroy());

  it('stays live while its own beats come back, without resetting the caches', async () => {
    await sleep(150);
    expect(env.state.published).toBeGreaterThan(4);
    expect(bus.live).toBe(true);
    expect(resets).toBe(0);
  });

  it('a subscriber that hears no beat is not live (caches bypassed) until one is heard again, then resets', async () => {
    env.state.drop = true;
    await sleep(400);
    expect(bus.live).toBe(false);
    expect(resets).toBeGreaterThan(0);
    const before = resets;
    env.state.drop = false;
    await sleep(60);
    expect(bus.live).toBe(true);
    expect(resets).toBeGreaterThan(before);
  });

  it('a beat lost in between (messages lost unseen) resets the caches', async () => {
    await sleep(50);
    env.state.drop = true;
    await sleep(25); // about one beat lost, well within the timeout
    env.state.drop = false;
    await sleep(50);
    expect(bus.live).toBe(true);
    expect(resets).toBeGreaterThanOrEqual(1);
  });

  it('a process that stalls (its own timers late) does not take the silence for a deaf subscriber', async () => {
    const until = Date.now() + 400; // twice the timeout, the event loop blocked
    while (Date.now() < until);
    await sleep(10);
    expect(bus.live).toBe(true);
    expect(resets).toBe(0);
  });

  it("ignores other processes' beats", async () => {
    env.sub.emit('message', bus.channel, JSON.stringify({ c: '~beat', k: ['other', '99'] }));
    await sleep(50);
    expect(resets).toBe(0);
  });
});
