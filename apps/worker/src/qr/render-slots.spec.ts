import { RenderSlots } from './render-slots';

describe('RenderSlots', () => {
  it('runs at most `size` at a time, in arrival order, and frees slots on failure', async () => {
    const slots = new RenderSlots(2);
    let running = 0;
    let peak = 0;
    const order: number[] = [];
    const releases: Array<() => void> = [];
    const task = (i: number, fail = false) =>
      slots.run(async () => {
        running += 1;
        peak = Math.max(peak, running);
        order.push(i);
        await new Promise<void>((r) => releases.push(r));
        running -= 1;
        if (fail) throw new Error(`task ${i}`);
        return i;
      });
    const all = [task(1, true), task(2), task(3), task(4)].map((p) =>
      p.catch((e: Error) => e.message),
    );
    await new Promise((r) => setImmediate(r));
    expect([slots.inUse, slots.queued, order]).toEqual([2, 2, [1, 2]]);
    while (releases.length) {
      releases.shift()!();
      await new Promise((r) => setImmediate(r));
    }
    expect(await Promise.all(all)).toEqual(['task 1', 2, 3, 4]);
    expect(order).toEqual([1, 2, 3, 4]);
    expect(peak).toBe(2);
    expect([slots.inUse, slots.queued]).toEqual([0, 0]);
  });

  it('refuses a size below 1', () => {
    expect(() => new RenderSlots(0)).toThrow();
  });
});
