import { CAP_CACHE_MS, ClickCaps } from './click-caps';

/** ClickCaps over a fake users table: each read returns the current cap and is counted. */
function setup() {
  const state = { cap: 100, reads: 0, asked: [] as number[][], release: [] as Array<() => void> };
  const caps = new ClickCaps({} as never);
  caps.readCaps = async (ids) => {
    state.reads++;
    state.asked.push(ids);
    await new Promise<void>((resolve) => state.release.push(resolve));
    return ids.map((id) => ({ id, clicks: String(state.cap) }));
  };
  let clock = 1_000_000;
  caps.now = () => clock;
  /** The turn's queued reads sent, then every read answered. */
  const turn = () => new Promise<void>((resolve) => setImmediate(resolve));
  const settle = async () => {
    await turn();
    for (const release of state.release.splice(0)) release();
    for (let i = 0; i < 5; i++) await Promise.resolve();
  };
  return { caps, state, settle, turn, advance: (ms: number) => (clock += ms) };
}

describe('ClickCaps', () => {
  it('many visits of an owner whose cap is unknown: one read of Postgres', async () => {
    const { caps, state, settle, turn } = setup();
    expect(caps.peek(1)).toBeUndefined();
    const answers = Array.from({ length: 100 }, () => caps.of(1));
    await turn();
    expect(state.reads).toBe(1);
    await settle();
    expect(await Promise.all(answers)).toEqual(Array(100).fill(100));
    expect(caps.peek(1)).toBe(100);
    expect(state.reads).toBe(1);
  });

  it('a cap older than a minute is still answered while one read refreshes it', async () => {
    const { caps, state, settle, turn, advance } = setup();
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
    await turn();
    expect(state.reads).toBe(2); // one refresh for all of them
    await settle();
    expect(caps.peek(1)).toBe(0);
    expect(state.reads).toBe(2);
  });

  it('owners asked for one by one in a turn: one statement, also when their caps turn stale together', async () => {
    const { caps, state, settle, turn, advance } = setup();
    const owners = Array.from({ length: 50 }, (_, i) => i + 1);
    const first = owners.map((id) => caps.of(id));
    await settle();
    expect(await Promise.all(first)).toEqual(Array(50).fill(100));
    expect(state.asked).toEqual([owners]);
    advance(CAP_CACHE_MS);
    for (const id of owners) expect(caps.peek(id)).toBe(100); // stale: answered, refreshed
    await turn();
    expect(state.asked).toEqual([owners, owners]);
    await settle();
    // the next turn's owners: a statement of their own
    const later = [caps.of(51), caps.of(52), caps.of(51)];
    await settle();
    expect(await Promise.all(later)).toEqual([100, 100, 100]);
    expect(state.asked).toEqual([owners, owners, [51, 52]]);
  });

  it('the owners of many visits: one statement for those not known, each owner once', async () => {
    const { caps, state, settle, turn } = setup();
    const first = caps.of(1);
    await settle();
    expect(await first).toBe(100);
    const answers = caps.ofMany([1, 2, 3, 2, 4, 3]);
    await turn();
    expect(state.asked).toEqual([[1], [2, 3, 4]]);
    await settle();
    expect(await answers).toEqual([100, 100, 100, 100, 100, 100]);
    // known now: no statement
    expect(await caps.ofMany([4, 2])).toEqual([100, 100]);
    expect(state.reads).toBe(2);
  });

  it('an owner without a row (deleted, or an admin) has no cap; a failed read is not remembered', async () => {
    const { caps } = setup();
    caps.readCaps = async () => [];
    expect(await caps.ofMany([7])).toEqual([0]);
    expect(caps.peek(7)).toBe(0);
    caps.readCaps = async () => {
      throw new Error('down');
    };
    expect(await caps.ofMany([8])).toEqual([0]);
    expect(caps.peek(8)).toBeUndefined();
  });
});
