import { applyProbe, HealthBefore, HISTORY, registrableDomain } from './health-state';
import { ProbeResult } from './target-probe';

const URL_A = 'https://www.shop.example.co.uk/page';
const good = (finalUrl = URL_A): ProbeResult => ({
  httpstatus: 200,
  error: null,
  ok: true,
  ms: 12,
  finalUrl,
});
const bad: ProbeResult = {
  httpstatus: 500,
  error: 'the target answered HTTP 500',
  ok: false,
  ms: 8,
  finalUrl: URL_A,
};
const start: HealthBefore = {
  stateUrl: URL_A,
  url: URL_A,
  status: 'unknown',
  fails: 0,
  oks: 0,
  since: null,
  domain: null,
  driftedTo: null,
  history: [],
};

/** Applies probes in order, returning every state and the events of each. */
function run(probes: ProbeResult[], from: HealthBefore = start, threshold = 3) {
  let state = from;
  return probes.map((p, i) => {
    const after = applyProbe(state, p, threshold, new Date(Date.UTC(2030, 0, 1, 0, 0, i)));
    state = { ...state, ...after };
    return after;
  });
}

describe('registrableDomain (Public Suffix List)', () => {
  it.each([
    ['https://www.shop.example.co.uk/x', 'example.co.uk'],
    ['https://a.b.example.com/', 'example.com'],
    ['https://someone.github.io/page', 'someone.github.io'],
    ['http://127.0.0.1:8080/', '127.0.0.1'],
    ['http://localhost:3000/', 'localhost'],
    ['http://[::1]:3000/', '::1'],
    ['not a url', null],
  ])('%s → %s', (url, domain) => {
    expect(registrableDomain(url)).toBe(domain);
  });
});

describe('applyProbe', () => {
  it('unknown → ok at the first good probe, recording the final registrable domain', () => {
    const [a] = run([good()]);
    expect(a).toMatchObject({ status: 'ok', oks: 1, fails: 0, domain: 'example.co.uk' });
    expect(a.since).toEqual(new Date(Date.UTC(2030, 0, 1, 0, 0, 0)));
    expect(a.events).toEqual([]);
    expect(a.history).toEqual([
      { date: '2030-01-01 00:00:00', httpstatus: 200, error: null, ms: 12 },
    ]);
  });

  it('broken after exactly `threshold` failures in a row, once; back after 2 good probes, once', () => {
    const states = run([good(), bad, bad, good(), bad, bad, bad, bad, good(), good(), good()]);
    expect(states.map((s) => s.status)).toEqual([
      'ok',
      'ok',
      'ok',
      'ok',
      'ok',
      'ok',
      'broken',
      'broken',
      'broken',
      'ok',
      'ok',
    ]);
    expect(states.flatMap((s) => s.events.map((e) => e.event))).toEqual([
      'link.broken',
      'link.recovered',
    ]);
    expect(states[6].events).toEqual([{ event: 'link.broken' }]);
    expect(states[9].events).toEqual([{ event: 'link.recovered' }]);
  });

  it('one good probe between failures does not recover a broken link (hysteresis)', () => {
    const states = run([bad, bad, bad, good(), bad, good(), good()]);
    expect(states.map((s) => s.status)).toEqual([
      'unknown',
      'unknown',
      'broken',
      'broken',
      'broken',
      'broken',
      'ok',
    ]);
  });

  it('drift: another registrable domain once per new domain, none within the same one', () => {
    const states = run([
      good('https://example.co.uk/'),
      good('https://cdn.example.co.uk/other'),
      good('https://parked.example.net/'),
      good('https://parked.example.net/again'),
      good('https://example.co.uk/back'),
      good('https://parked.example.net/'),
    ]);
    expect(states.map((s) => s.events)).toEqual([
      [],
      [],
      [{ event: 'link.drifted', from: 'example.co.uk', to: 'example.net' }],
      [],
      [],
      [{ event: 'link.drifted', from: 'example.co.uk', to: 'example.net' }],
    ]);
    expect(states.every((s) => s.domain === 'example.co.uk')).toBe(true);
  });

  it('a changed URL starts over: unknown, counters and recorded domain cleared, history kept', () => {
    const before: HealthBefore = {
      ...start,
      stateUrl: 'https://old.example/',
      status: 'broken',
      fails: 7,
      domain: 'old.example',
      driftedTo: 'x.example',
      history: [{ date: '2029-12-31 00:00:00', httpstatus: 500, error: 'e', ms: 1 }],
    };
    const [a] = run([bad], before);
    expect(a).toMatchObject({ status: 'unknown', fails: 1, oks: 0, domain: null, driftedTo: null });
    expect(a.events).toEqual([]);
    expect(a.history).toHaveLength(2);
    const [b] = run([good('https://new.example/')], before);
    expect(b).toMatchObject({ status: 'ok', domain: 'new.example' });
    expect(b.events).toEqual([]);
  });

  it(`keeps the last ${HISTORY} probes, newest first`, () => {
    const states = run(Array.from({ length: HISTORY + 5 }, () => good()));
    const last = states[states.length - 1].history;
    expect(last).toHaveLength(HISTORY);
    expect(last[0].date).toBe('2030-01-01 00:00:24');
    expect(last[HISTORY - 1].date).toBe('2030-01-01 00:00:05');
  });
});
