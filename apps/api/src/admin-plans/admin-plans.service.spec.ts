import { FREE_LIMITS, Plan, PRO_LIMITS } from '@app/database';

import { planLimits, planView } from './dto/plan.view';
import { defaultExpiry } from './admin-plans.service';

const utc = (s: string) => new Date(`${s}Z`);

describe('defaultExpiry', () => {
  it('monthly: one calendar month, clamped to the month end', () => {
    expect(defaultExpiry('monthly', utc('2024-01-31T10:00:00'))?.toISOString()).toBe(
      '2024-02-29T10:00:00.000Z',
    );
    expect(defaultExpiry('monthly', utc('2023-01-31T10:00:00'))?.toISOString()).toBe(
      '2023-02-28T10:00:00.000Z',
    );
    expect(defaultExpiry('monthly', utc('2024-05-15T01:02:03'))?.toISOString()).toBe(
      '2024-06-15T01:02:03.000Z',
    );
  });

  it('yearly: twelve months (Feb 29 → Feb 28)', () => {
    expect(defaultExpiry('yearly', utc('2024-05-15T01:02:03'))?.toISOString()).toBe(
      '2025-05-15T01:02:03.000Z',
    );
    expect(defaultExpiry('yearly', utc('2024-02-29T00:00:00'))?.toISOString()).toBe(
      '2025-02-28T00:00:00.000Z',
    );
  });

  it('lifetime: never', () => {
    expect(defaultExpiry('lifetime', utc('2024-05-15T01:02:03'))).toBeNull();
  });
});

describe('planLimits', () => {
  it('keeps a complete stored object as it is', () => {
    expect(planLimits(FREE_LIMITS as never)).toEqual(FREE_LIMITS);
    expect(planLimits(PRO_LIMITS as never)).toEqual(PRO_LIMITS);
  });

  it('fills what an operator left out the way the plan checks read it', () => {
    const limits = planLimits({
      links: 5,
      api: { enabled: '1' },
      domain: { enabled: '1', count: '3' },
    } as never);
    expect(limits).toEqual({
      links: 5,
      clicks: 0,
      retention: 0,
      custom: { enabled: '0' },
      multiple: { enabled: '0' },
      alias: { enabled: '0' },
      device: { enabled: '0' },
      geo: { enabled: '0' },
      bundle: { enabled: '0' },
      parameters: { enabled: '0' },
      export: { enabled: '0' },
      api: { enabled: '1' },
      team: { enabled: '0', count: '0' },
      splash: { enabled: '0', count: '0' },
      overlay: { enabled: '0', count: '0' },
      pixels: { enabled: '0', count: '0' },
      domain: { enabled: '1', count: '3' },
    });
    expect(planLimits(null).links).toBe(0);
  });

  it('drops unknown keys and normalises malformed values', () => {
    const limits = planLimits({
      links: 'x',
      extra: 1,
      geo: { enabled: true },
      team: { enabled: '1', count: 7 },
    } as never);
    expect(limits).not.toHaveProperty('extra');
    expect(limits.links).toBe(0);
    expect(limits.geo).toEqual({ enabled: '0' });
    expect(limits.team).toEqual({ enabled: '1', count: '7' });
  });
});

describe('planView', () => {
  const base = { id: 3, name: 'X', limits: PRO_LIMITS, createdAt: new Date() } as unknown as Plan;

  it('prices are null for a free plan', () => {
    expect(
      planView({
        ...base,
        free: true,
        priceMonthly: null,
        priceYearly: null,
        priceLifetime: null,
      }).prices,
    ).toBeNull();
  });

  it('prices are numbers for a paid plan', () => {
    expect(
      planView({
        ...base,
        free: false,
        priceMonthly: 9.99,
        priceYearly: 99,
        priceLifetime: 299,
      }),
    ).toEqual({
      id: 3,
      name: 'X',
      free: false,
      prices: { monthly: 9.99, yearly: 99, lifetime: 299 },
      limits: PRO_LIMITS,
    });
  });
});
