import { BATCH_MAX, BatchedRow, batches, InsertBatches } from './insert-batches';

describe('batches', () => {
  const e = (alias: string) => ({ alias });

  it('keeps arrival order and puts a repeated alias in the next batch', () => {
    expect(batches([e('a'), e('b'), e('a'), e('c'), e('a')])).toEqual([
      [e('a'), e('b'), e('c')],
      [e('a')],
      [e('a')],
    ]);
  });

  it('holds BATCH_MAX entries at most', () => {
    const many = Array.from({ length: BATCH_MAX * 2 + 1 }, (_, i) => e(`x${i}`));
    expect(batches(many).map((b) => b.length)).toEqual([BATCH_MAX, BATCH_MAX, 1]);
  });
});

describe('InsertBatches', () => {
  /** A writer answering every input's alias with an id, unless told which to skip or to fail. */
  function writer(opts: { skip?: string[]; fail?: boolean } = {}) {
    const calls: Array<{ shape: string; aliases: string[] }> = [];
    let id = 0;
    const write = async (shape: string, inputs: Array<Record<string, unknown>>) => {
      calls.push({ shape, aliases: inputs.map((i) => i.alias as string) });
      if (opts.fail) throw new Error('batch failed');
      return inputs
        .filter((i) => !opts.skip?.includes(i.alias as string))
        .map((i): BatchedRow => ({ id: ++id, alias: i.alias as string }));
    };
    return { calls, write };
  }
  const entry = (key: string, alias: string, alone = async () => [{ id: -1 }]) => ({
    shape: key,
    key,
    alias,
    input: { alias },
    alone,
  });

  it('one statement per shape for the entries of one turn; an alias not answered gets no row', async () => {
    const w = writer({ skip: ['b'] });
    const batch = new InsertBatches(w.write);
    const alone = jest.fn(async () => [{ id: 99 }]);
    const answers = await Promise.all([
      batch.submit(entry('s1', 'a', alone)),
      batch.submit(entry('s2', 'x', alone)),
      batch.submit(entry('s1', 'b', alone)),
      batch.submit(entry('s1', 'c', alone)),
    ]);
    expect(w.calls).toEqual([{ shape: 's1', aliases: ['a', 'b', 'c'] }]);
    // the lone entry of its shape goes alone
    expect(alone).toHaveBeenCalledTimes(1);
    expect(answers).toEqual([[{ id: 1 }], [{ id: 99 }], [], [{ id: 2 }]]);
  });

  it('entries of later turns go in later statements', async () => {
    const w = writer();
    const batch = new InsertBatches(w.write);
    const first = [batch.submit(entry('s', 'a')), batch.submit(entry('s', 'b'))];
    await Promise.all(first);
    await Promise.all([batch.submit(entry('s', 'c')), batch.submit(entry('s', 'd'))]);
    expect(w.calls.map((c) => c.aliases)).toEqual([
      ['a', 'b'],
      ['c', 'd'],
    ]);
  });

  it('a failed statement: each entry written alone, with its own answer or error', async () => {
    const w = writer({ fail: true });
    const batch = new InsertBatches(w.write);
    const refused = new Error('refused');
    const results = await Promise.allSettled([
      batch.submit(entry('s', 'a', async () => [{ id: 10 }])),
      batch.submit(
        entry('s', 'b', async () => {
          throw refused;
        }),
      ),
      batch.submit(entry('s', 'c', async () => [])),
    ]);
    expect(w.calls).toHaveLength(1);
    expect(results).toEqual([
      { status: 'fulfilled', value: [{ id: 10 }] },
      { status: 'rejected', reason: refused },
      { status: 'fulfilled', value: [] },
    ]);
  });
});
