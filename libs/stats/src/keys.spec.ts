import { StatsKeys } from './keys';

/** What Redis Cluster hashes to pick a key's slot: the first non-empty `{...}`, else the key. */
function hashed(key: string): string {
  const open = key.indexOf('{');
  const close = key.indexOf('}', open + 1);
  return open >= 0 && close > open + 1 ? key.slice(open + 1, close) : key;
}

const keys = new StatsKeys({ key: (...parts) => ['lm', ...parts].join(':') }, 16);

describe('StatsKeys', () => {
  it('puts a link in partition id mod STATS_PARTITIONS, all its keys under the partition hash tag', () => {
    expect(keys.partitionOf(35)).toBe(3);
    const p = keys.of(35);
    expect(p.partition).toBe(3);
    expect(p.pending(35)).toBe('lm:st:{st3}:p:35');
    expect(p.dirty).toBe('lm:st:{st3}:dirty');
    expect(p.inflight).toBe('lm:st:{st3}:inflight');
    expect(p.batch('p3-1-x')).toBe('lm:st:{st3}:b:p3-1-x');
    expect(p.batchLink('p3-1-x', 35)).toBe('lm:st:{st3}:b:p3-1-x:35');
    expect(keys.visitors(35, '20260101')).toBe('lm:st:{st3}:u:35:20260101');
    const slots = new Set(
      [p.pending(35), p.dirty, p.inflight, p.batchLink('b', 35), keys.visitors(35, '1')].map((k) =>
        hashed(k),
      ),
    );
    expect([...slots]).toEqual(['st3']);
  });

  it('gives each partition its own hash tag, and the cap counter none', () => {
    const slots = new Set(keys.partitions.map((p) => hashed(p.dirty)));
    expect(slots.size).toBe(16);
    expect(keys.cap(7, '202601')).toBe('lm:st:cap:7:202601');
    expect(hashed(keys.cap(7, '202601'))).toBe('lm:st:cap:7:202601');
  });

  it('finds a batch’s partition from its id; ids of earlier versions belong to the layout before partitions', () => {
    expect(keys.ofBatch('p12-1700000000000-abc').partition).toBe(12);
    expect(keys.ofBatch('p40-1700000000000-abc').dirty).toBe('lm:st:{st40}:dirty');
    expect(keys.ofBatch('1700000000000-abc')).toBe(keys.legacy);
    expect(keys.ofBatch('p-1-1700000000000-abc')).toBe(keys.legacy);
    expect(keys.legacy.pending(35)).toBe('lm:st:p:35');
    expect(keys.legacy.dirty).toBe('lm:st:dirty');
    // the old layout's visitors are merged into the link's partition
    expect(keys.legacy.visitors(35, '20260101')).toBe('lm:st:{st3}:u:35:20260101');
    expect(keys.legacy.formerVisitors).toBe('lm:st:u');
  });
});
