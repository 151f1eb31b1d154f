import { LinkDay, Visitor, VisitLog, VisitOrder } from './visit-log';

const visitor = (day: string, field: string, digest: string): Visitor => ({
  day,
  hour: `${day}10`,
  userAgent: 'ua',
  countable: true,
  digest,
  referer: undefined,
  acceptLanguage: undefined,
  query: undefined,
  parameters: null,
  field,
});

/** A log of `visits` ([link id, visitor]) in that order. */
function logOf(visits: Array<[number, Visitor]>): VisitLog {
  const log = new VisitLog();
  for (const [link, v] of visits) log.push(link, v);
  return log;
}

/** Every bucket's link-days, bucket by bucket. */
function buckets(order: VisitOrder, log: VisitLog): LinkDay[][] {
  const out: LinkDay[][] = [];
  for (let b = 0; b < order.buckets; b++) {
    const days: LinkDay[] = [];
    order.aggregate(log, b, days);
    out.push(days);
  }
  return out;
}

describe('VisitOrder', () => {
  const a = visitor('20261129', 'field-a', 'digest-a');
  const b = visitor('20261129', 'field-b', 'digest-b');

  it('puts all of a link’s visits in one bucket of its partition, and every visit in exactly one', () => {
    const visits: Array<[number, Visitor]> = [];
    for (let i = 0; i < 5000; i++) visits.push([1 + ((i * 7919) % 1300), i % 3 ? a : b]);
    const log = logOf(visits);
    const order = new VisitOrder();
    order.sort(log, log.length, 16, (id) => id % 16, 50);
    // 5 000 visits, 16 partitions, ~50 visits a bucket: 7 buckets a partition
    expect(order.buckets).toBe(16 * 7);
    const seen = new Map<number, number>();
    let counted = 0;
    buckets(order, log).forEach((days, bucket) => {
      for (const d of days) {
        expect(d.linkId % 16).toBe(order.partitionOf(bucket));
        // a link appears in one bucket only
        expect(seen.get(d.linkId) ?? bucket).toBe(bucket);
        seen.set(d.linkId, bucket);
        counted += d.counts.reduce((x, y) => x + y, 0);
      }
    });
    expect(counted).toBe(5000);
    expect(seen.size).toBe(1300);
    // partitions in order: the flush fills a chunk per partition from consecutive buckets
    const partitions = Array.from({ length: order.buckets }, (_, i) => order.partitionOf(i));
    expect(partitions).toEqual([...partitions].sort((x, y) => x - y));
  });

  it('aggregates a bucket per link and day: counts per field, distinct digests', () => {
    const next = visitor('20261130', 'field-a', 'digest-a');
    const log = logOf([
      [3, a],
      [3, b],
      [3, a],
      [3, next],
      [5, b],
    ]);
    const order = new VisitOrder();
    order.sort(log, log.length, 2, (id) => id % 2, 50);
    const days = buckets(order, log).flat();
    const byKey = new Map(days.map((d) => [`${d.linkId}:${d.day}`, d]));
    expect([...byKey.keys()].sort()).toEqual(['3:20261129', '3:20261130', '5:20261129']);
    expect(byKey.get('3:20261129')?.toJSON()).toEqual([
      '3',
      '20261129',
      ['field-a', 'field-b'],
      [2, 1],
      ['digest-a', 'digest-b'],
    ]);
    expect(byKey.get('3:20261130')?.toJSON()).toEqual([
      '3',
      '20261130',
      ['field-a'],
      [1],
      ['digest-a'],
    ]);
    expect(byKey.get('5:20261129')?.toJSON()).toEqual([
      '5',
      '20261129',
      ['field-b'],
      [1],
      ['digest-b'],
    ]);
  });

  it('orders only the visits held, and reuses its arrays for a smaller log', () => {
    const order = new VisitOrder();
    const big = logOf(Array.from({ length: 3000 }, (_, i): [number, Visitor] => [i + 1, a]));
    order.sort(big, big.length, 4, (id) => id % 4, 50);
    expect(buckets(order, big).flat()).toHaveLength(3000);
    const small = logOf([
      [8, a],
      [9, b],
    ]);
    order.sort(small, small.length, 4, (id) => id % 4, 50);
    expect(order.buckets).toBe(4);
    const days = buckets(order, small);
    expect(days.flat().map((d) => d.linkId)).toEqual([8, 9]);
    expect(days[0].map((d) => d.linkId)).toEqual([8]);
    expect(days[1].map((d) => d.linkId)).toEqual([9]);
  });
});
