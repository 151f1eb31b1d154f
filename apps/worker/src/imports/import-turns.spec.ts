import { ImportTurns } from './import-turns';

describe('ImportTurns', () => {
  it('runs one turn at a time, in the order they were asked for, a failed turn included', async () => {
    const turns = new ImportTurns();
    const log: string[] = [];
    let running = 0;
    const work = (name: string, ms: number, fail = false) =>
      turns.take(async () => {
        running += 1;
        expect(running).toBe(1);
        log.push(`${name} start`);
        await new Promise((r) => setTimeout(r, ms));
        log.push(`${name} end`);
        running -= 1;
        if (fail) throw new Error(name);
        return name;
      });
    const results = await Promise.allSettled([
      work('a1', 20),
      work('b', 1, true),
      work('a2', 5),
      work('c', 1),
    ]);
    expect(results.map((r) => r.status)).toEqual([
      'fulfilled',
      'rejected',
      'fulfilled',
      'fulfilled',
    ]);
    expect(log).toEqual([
      'a1 start',
      'a1 end',
      'b start',
      'b end',
      'a2 start',
      'a2 end',
      'c start',
      'c end',
    ]);
  });
});
