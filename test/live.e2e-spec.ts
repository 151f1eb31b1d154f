import request from 'supertest';

import { sha256 } from '@app/common';
import { agentInfo, countryOf, LiveHub, LivePublisher, placeOfAddress } from '@app/stats';

import { LiveStreams } from '../apps/api/src/stats/live-streams';
import { addKey, revokeKeys } from './support/access';
import {
  createPlan,
  createTestApp,
  createUser,
  DATE_TIME,
  expectError,
  TestApp,
  TestUser,
  useSuite,
} from './support/app';
import { openLive, LiveStream } from './support/live';
import { insertLink, insertQr } from './support/resources';
import { BROWSER_UA, eventually, PREVIEW_UA } from './support/stats';

const IPHONE_UA =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1';

const HEARTBEAT_MS = 300;

/** A visit of a short code through the real public side (the redirect), as a browser or a bot. */
function visit(
  t: TestApp,
  alias: string,
  opts: { ua?: string; ip?: string; referer?: string; method?: 'get' | 'head' } = {},
): request.Test {
  const agent = request(t.server);
  const req = (opts.method === 'head' ? agent.head(`/${alias}`) : agent.get(`/${alias}`))
    .set('User-Agent', opts.ua ?? BROWSER_UA)
    .set('X-Forwarded-For', opts.ip ?? '8.8.8.8');
  return opts.referer ? req.set('Referer', opts.referer) : req;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Live visit streams (CONTRACT "Statistics, second part"): Server-Sent Events of the visits made
 * after a stream opened, through Redis pub/sub, on the real app (real Redis, Postgres, redirects).
 */
describe('live visit streams', () => {
  const { t, owner, other, capper, limited } = useSuite(
    { owner: { plan: 'Pro' }, other: {}, capper: {}, limited: {} },
    { LIVE_HEARTBEAT_MS: String(HEARTBEAT_MS), LIVE_STREAMS_PER_KEY: '3' },
  );
  const open: LiveStream[] = [];
  const live = async (path: string, headers: Record<string, string>) => {
    const s = await openLive(t.server, path, headers);
    open.push(s);
    return s;
  };
  afterEach(() => {
    for (const s of open.splice(0)) s.close();
  });

  it('streams exactly the visits made after connecting, within a second: no bot, no HEAD, no other user’s, no address', async () => {
    const [l1, l2] = [await insertLink(t, owner.id), await insertLink(t, owner.id)];
    const qr = await insertQr(t, owner.id);
    const theirs = await insertLink(t, other.id);
    // before any stream: never sent
    await visit(t, l1.alias, { ip: '9.9.9.9' }).expect(302);
    await sleep(400);

    const all = await live('/api/stats/live', owner.auth);
    const one = await live(`/api/url/${l1.id}/live`, owner.auth);
    const stranger = await live('/api/stats/live', other.auth);
    expect(all.status).toBe(200);
    expect(all.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(all.headers['cache-control']).toBe('no-store, no-transform');
    expect(all.headers['x-accel-buffering']).toBe('no');
    expect(all.headers['content-encoding']).toBeUndefined();
    expect(all.headers['content-length']).toBeUndefined();
    expect(all.comments).toContain('connected');

    await visit(t, l1.alias, { referer: 'https://t.co/abc?x=1' }).expect(302);
    const sent = Date.now();
    await all.until(() => all.events.length >= 1, 1500);
    // within a second of the redirect's answer
    const latency = Date.now() - sent;
    console.info(`live: first visit streamed ${latency} ms after the redirect answered`);
    expect(latency).toBeLessThan(1000);
    await visit(t, l2.alias, { ua: IPHONE_UA, ip: '1.1.1.1' }).expect(302);
    await request(t.server)
      .get(`/q/${qr.alias}`)
      .set('User-Agent', BROWSER_UA)
      .set('X-Forwarded-For', '8.8.4.4');
    await visit(t, l1.alias, { ua: PREVIEW_UA }).expect(302); // a link-preview bot
    await visit(t, l1.alias, { method: 'head' }).expect(302); // served, not counted
    await visit(t, theirs.alias).expect(302); // another user's link

    await all.until(() => all.events.length >= 3, 1500);
    await sleep(600); // nothing else arrives
    expect(all.events.map((e) => e.link)).toEqual([l1.id, l2.id, qr.linkId]);
    expect(all.events[0]).toEqual({
      date: expect.stringMatching(DATE_TIME),
      link: l1.id,
      country: 'United States',
      // the installed city database's answer for the address (null where it names none)
      city: ((c) => (c === 'Unknown' ? null : c))(placeOfAddress('8.8.8.8').city),
      referrer: 't.co',
      browser: 'Chrome',
      os: 'Windows',
      device: 'desktop',
    });
    expect(all.events[1]).toMatchObject({
      link: l2.id,
      country: countryOf('1.1.1.1'),
      referrer: 'Direct',
      browser: agentInfo(IPHONE_UA).browser,
      os: agentInfo(IPHONE_UA).os,
      device: 'mobile',
    });
    const at = Date.parse(`${all.events[0].date.replace(' ', 'T')}Z`);
    expect(Math.abs(at - sent)).toBeLessThan(2000);
    // one link's stream: that link's visits only
    expect(one.events.map((e) => e.link)).toEqual([l1.id]);
    // the other user's stream: their own link's visit, none of the owner's
    expect(stranger.events.map((e) => e.link)).toEqual([theirs.id]);
    // no address, no digest, anywhere in the stream
    for (const s of [all, one])
      for (const ip of ['8.8.8.8', '1.1.1.1', '8.8.4.4', '9.9.9.9'])
        expect(s.raw()).not.toContain(ip);
  });

  it('a capped owner’s visits are streamed once counted: none past the monthly clicks cap', async () => {
    const capped = await createUser(t, { planId: await createPlan(t, { clicks: 2 }) });
    const link = await insertLink(t, capped.id);
    const s = await live('/api/stats/live', capped.auth);
    for (let i = 0; i < 4; i++) await visit(t, link.alias, { ip: `8.8.8.${10 + i}` }).expect(302);
    await s.until(() => s.events.length >= 2, 1500);
    await sleep(700);
    expect(s.events.map((e) => e.link)).toEqual([link.id, link.id]);
  });

  it('heartbeats: a comment line every LIVE_HEARTBEAT_MS without visits', async () => {
    const s = await live('/api/stats/live', owner.auth);
    await sleep(HEARTBEAT_MS * 3 + 150);
    const beats = s.comments.filter((c) => c === 'heartbeat').length;
    expect(beats).toBeGreaterThanOrEqual(2);
    expect(beats).toBeLessThanOrEqual(4);
    expect(s.events).toEqual([]);
  });

  it('at most LIVE_STREAMS_PER_KEY streams per key (429 past it); a closed stream gives its slot back; another key has its own', async () => {
    const first = [
      await live('/api/stats/live', capper.auth),
      await live('/api/stats/live', capper.auth),
      await live('/api/stats/live', capper.auth),
    ];
    expect(first.map((s) => s.status)).toEqual([200, 200, 200]);
    const refused = await live('/api/stats/live', capper.auth);
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toBe('10');
    expect(refused.body).toEqual({
      error: 1,
      message: expect.stringMatching(/LIVE_STREAMS_PER_KEY/),
    });
    // a named key of the same user counts apart
    const key = await addKey(t, { workspace: capper.id, user: capper.id, scopes: ['stats:read'] });
    expect((await live('/api/stats/live', key.auth)).status).toBe(200);
    first[0].close();
    await eventually(async () => {
      const again = await openLive(t.server, '/api/stats/live', capper.auth);
      open.push(again);
      return again.status === 200;
    }, 3000);
  });

  it('a revoked key’s stream ends within about a second, with an end event', async () => {
    const key = await addKey(t, {
      workspace: limited.id,
      user: limited.id,
      scopes: ['stats:read'],
    });
    const link = await insertLink(t, limited.id);
    const s = await live(`/api/url/${link.id}/live`, key.auth);
    expect(s.status).toBe(200);
    await sleep(300);
    expect(s.closed).toBe(false);
    const revoked = Date.now();
    await revokeKeys(t, [key.id]);
    await s.until(() => s.closed, 3000);
    expect(Date.now() - revoked).toBeLessThan(2500);
    expect(s.ended).toEqual({ reason: 'Invalid API key' });
  });

  it('a signed-in session’s stream (the dashboard) ends when the session does', async () => {
    const signIn = await request(t.server)
      .post('/auth/session')
      .set('X-Forwarded-For', '203.0.113.9')
      .send({ email: limited.email, password: limited.password })
      .expect(200);
    const cookie = (signIn.headers['set-cookie'] as unknown as string[])[0].split(';')[0];
    const s = await live('/api/stats/live', { Cookie: cookie });
    expect(s.status).toBe(200);
    await request(t.server).delete('/auth/session').set('Cookie', cookie).expect(200);
    await s.until(() => s.closed, 3000);
    expect(s.ended).toEqual({ reason: 'Session expired or signed out: sign in again' });
  });

  it('a client that goes away frees everything: its slot, its subscription', async () => {
    const hub = t.app.get(LiveHub);
    const streams = t.app.get(LiveStreams);
    const user = await createUser(t);
    const slots = t.redis.key('live', 'streams', sha256(`key:${user.apiKey}`).slice(0, 32));
    // the earlier tests' streams, closed by their clients, are gone on the server side too
    await eventually(async () => streams.size === 0 && hub.size === 0, 2000);
    const s = await live('/api/stats/live', user.auth);
    const s2 = await live('/api/stats/live', user.auth);
    expect([streams.size, hub.size, await t.redis.client.zcard(slots)]).toEqual([2, 2, 2]);
    s.close();
    s2.close();
    await eventually(async () => streams.size === 0 && hub.size === 0, 2000);
    expect(await t.redis.client.zcard(slots)).toBe(0);
  });

  it('isolation and bad ids: another user’s link is the 404 of GET /api/url/:id; a bad id is a 400', async () => {
    const theirs = await insertLink(t, other.id);
    const plain = await request(t.server).get(`/api/url/${theirs.id}`).set(owner.auth);
    const s = await live(`/api/url/${theirs.id}/live`, owner.auth);
    expect({ status: s.status, body: s.body }).toEqual({ status: plain.status, body: plain.body });
    expect(s.status).toBe(404);
    const qr = await insertQr(t, owner.id);
    // a QR code's link is not a short link of GET /api/url/:id
    expect((await live(`/api/url/${qr.linkId}/live`, owner.auth)).status).toBe(404);
    const bad = await live('/api/url/abc/live', owner.auth);
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: 1, message: 'id: must be a positive integer' });
    const none = await live('/api/stats/live', {});
    expect(none.status).toBe(401);
    const r = await request(t.server).head('/api/stats/live').set(owner.auth);
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('text/event-stream; charset=utf-8');
  });

  it('routes the errors through the envelope (429 body shape)', async () => {
    const u = await createUser(t);
    const streams = await Promise.all([1, 2, 3].map(() => live('/api/stats/live', u.auth)));
    expect(streams.map((s) => s.status)).toEqual([200, 200, 200]);
    const res = await request(t.server).get('/api/stats/live').set(u.auth);
    expectError(res, 429, /^At most 3 live streams/);
  });
});

describe('live visit streams across two api replicas', () => {
  let a: TestApp;
  let b: TestApp;
  let owner: TestUser;
  const open: LiveStream[] = [];
  beforeAll(async () => {
    a = await createTestApp();
    b = await createTestApp();
    owner = await createUser(a, { plan: 'Pro' });
  });
  afterAll(async () => {
    for (const s of open) s.close();
    await a?.close();
    await b?.close();
  });

  it('a visit redirected by one replica reaches a stream on the other within a second', async () => {
    const link = await insertLink(a, owner.id);
    const capped = await createUser(a);
    const cappedLink = await insertLink(a, capped.id);
    const onB = await openLive(b.server, '/api/stats/live', owner.auth);
    const cappedOnA = await openLive(a.server, `/api/url/${cappedLink.id}/live`, capped.auth);
    open.push(onB, cappedOnA);
    expect(onB.status).toBe(200);
    // each opening is announced to the other replica over the bus; on a cluster the message may
    // reach it a few milliseconds after the stream answered (a visit in between is not streamed)
    await eventually(
      async () =>
        a.app.get(LivePublisher).wants(owner.id) && b.app.get(LivePublisher).wants(capped.id),
      5_000,
      5,
    );
    const sent = Date.now();
    await visit(a, link.alias).expect(302);
    // and the other way: recorded on B (capped path), streamed on A
    await visit(b, cappedLink.alias, { ip: '1.1.1.1' }).expect(302);
    await onB.until(() => onB.events.length === 1, 1500);
    await cappedOnA.until(() => cappedOnA.events.length === 1, 1500);
    expect(Date.now() - sent).toBeLessThan(1500);
    expect(onB.events[0]).toMatchObject({ link: link.id, country: 'United States' });
    expect(cappedOnA.events[0]).toMatchObject({
      link: cappedLink.id,
      country: countryOf('1.1.1.1'),
    });
  });
});
