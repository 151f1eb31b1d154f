import { PlanService } from '@app/common';
import { User } from '@app/database';
import { Repository } from 'typeorm';

import { CAP_CACHE_MS, ClickCaps } from './click-caps';

/** ClickCaps over a fake users table: each read returns the current cap and is counted. */
function setup() {
  const state = { cap: 100, reads: 0, release: [] as Array<() => void> };
  const users = {
    findOne: async () => {
      state.reads++;
      await new Promise<void>((resolve) => state.release.push(resolve));
      return { id: 1 } as User;
    },
  } as unknown as Repository<User>;
  const plans = { clicksCap: async () => state.cap } as unknown as PlanService;
  const caps = new ClickCaps(users, plans);
  let clock = 1_000_000;
  caps.now = () => clock;
  const settle = async () => {
    for (const release of state.release.splice(0)) release();
    for (let i = 0; i < 5; i++) await Promise.resolve();
  };
  return { caps, state, settle, advance: (ms: number) => (clock += ms) };
}

describe('ClickCaps', () => {
  it('many visits of an owner whose cap is unknown: one read of Postgres', async () => {
    const { caps, state, settle } = setup();
    expect(caps.peek(1)).toBeUndefined();
    const answers = Array.from({ length: 100 }, () => caps.of(1));
    expect(state.reads).toBe(1);
    await settle();
    expect(await Promise.all(answers)).toEqual(Array(100).fill(100));
    expect(caps.peek(1)).toBe(100);
    expect(state.reads).toBe(1);
  });

  it('a cap older than a minute is still answered while one read refreshes it', async () => {
    const { caps, state, settle, advance } = setup();
    const first = caps.of(1);
    await settle();
    expect(await first).toBe(100);
    state.cap = 0; // the owner moved to a plan without a cap
    advance(CAP_CACHE_MS - 1);
    expect(caps.peek(1)).toBe(100);
    expect(state.reads).toBe(1); // still fresh: no read
    advance(1);
    for (let i = 0; i < 1000; i++) expect(caps.peek(1)).toBe(100); // stale, answered at once
    expect(await caps.of(1)).toBe(100);
    expect(state.reads).toBe(2); // one refresh for all of them
    await settle();
    expect(caps.peek(1)).toBe(0);
    expect(state.reads).toBe(2);
  });
});
