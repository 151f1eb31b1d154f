import { RedisService } from '@app/redis';
import { VisitInput, VisitRecorder } from '@app/stats';

import { OUTAGE_VISITS_MAX, OutageVisits } from './outage-visits';

const redis = (ready: boolean) => ({ ready }) as RedisService;
const visit = (linkId: number, at?: number): VisitInput => ({
  linkId,
  userId: 1,
  method: 'GET',
  ip: '192.0.2.1',
  userAgent: 'Mozilla/5.0',
  referer: undefined,
  at,
});

describe('OutageVisits', () => {
  it('holds while Redis is unreachable, and always without a recorder (the starting front)', () => {
    const recorder = { record: jest.fn() } as unknown as VisitRecorder;
    expect(new OutageVisits(redis(false), recorder).holding).toBe(true);
    expect(new OutageVisits(redis(true), recorder).holding).toBe(false);
    expect(new OutageVisits(redis(true)).holding).toBe(true);
  });

  it('dates a visit when it is held, and keeps a date it already has', () => {
    const visits = new OutageVisits(redis(false));
    const before = Date.now();
    visits.keep(visit(1));
    visits.keep(visit(2, 1_000));
    const { visits: held } = visits.handOver();
    expect(held[0].at).toBeGreaterThanOrEqual(before);
    expect(held[0].at).toBeLessThanOrEqual(Date.now());
    expect(held[1].at).toBe(1_000);
  });

  it('hands its visits over once; the taker keeps them within its cap and counts the rest as dropped', () => {
    const starting = new OutageVisits(redis(false));
    for (let i = 0; i < 3; i++) starting.keep(visit(i, i));
    const full = new OutageVisits(redis(false));
    for (let i = 0; i < OUTAGE_VISITS_MAX - 2; i++) full.keep(visit(100, 5));
    full.adopt(starting.handOver());
    expect(starting.size).toBe(0);
    expect(starting.handOver()).toEqual({ visits: [], dropped: 0 });
    expect(full.size).toBe(OUTAGE_VISITS_MAX);
    const { visits: held, dropped } = full.handOver();
    expect(held.slice(-2).map((v) => v.linkId)).toEqual([0, 1]);
    expect(dropped).toBe(1);
  });
});
