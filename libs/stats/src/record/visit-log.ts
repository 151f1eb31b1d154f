import type { VisitInput } from '../types';

/**
 * The in-memory side of visit recording between two flushes (see VisitRecorder): the columnar
 * log of visits, the visitor memo entries it points to, and their aggregation per link and day.
 */

/** Distinct values a link-day keeps in plain arrays before it indexes them. */
const SMALL = 16;

/**
 * One link's visits of one day between two flushes: visits per profile field (see
 * `profileField`) and the distinct visitor digests. In a flush interval a link-day rarely sees
 * more than a few of either, so they live in exact-size arrays searched linearly (a fraction of
 * the garbage of a Map and a Set per link-day), indexed only once a busy link outgrows that.
 */
export class LinkDay {
  readonly fields: string[];
  readonly counts: number[];
  readonly digests: string[];
  private fieldIndex?: Map<string, number>;
  private digestIndex?: Set<string>;

  constructor(
    readonly linkId: number,
    readonly day: string,
    field: string,
    digest: string,
  ) {
    this.fields = [field];
    this.counts = [1];
    this.digests = [digest];
  }

  add(field: string, digest: string): void {
    let i = this.fieldIndex ? (this.fieldIndex.get(field) ?? -1) : this.fields.indexOf(field);
    if (i < 0) {
      i = this.fields.push(field) - 1;
      this.counts.push(0);
      if (this.fieldIndex) this.fieldIndex.set(field, i);
      else if (i === SMALL) this.fieldIndex = new Map(this.fields.map((f, k) => [f, k]));
    }
    this.counts[i] += 1;
    if (this.digestIndex ? this.digestIndex.has(digest) : this.digests.includes(digest)) return;
    this.digests.push(digest);
    if (this.digestIndex) this.digestIndex.add(digest);
    else if (this.digests.length > SMALL) this.digestIndex = new Set(this.digests);
  }

  /** The chunk script's entry: `[link id, day, [field, ...], [increment, ...], [digest, ...]]`. */
  toJSON(): [string, string, string[], number[], string[]] {
    return [String(this.linkId), this.day, this.fields, this.counts, this.digests];
  }
}

/**
 * What the recorder remembers of a visitor (by IP) for the day: the digest and the profile field
 * of their last visit. Returning visitors, the common case, then cost one map lookup.
 */
export interface Visitor {
  readonly day: string;
  /** `YYYYMMDDHH` (UTC) of the visit the profile field was made for */
  readonly hour: string;
  readonly userAgent: string;
  /** A browser's agent (not a bot's, not blank): its visits are counted. */
  readonly countable: boolean;
  readonly digest: string;
  readonly referer: string | undefined;
  readonly acceptLanguage: string | undefined;
  readonly query: string | undefined;
  readonly parameters: VisitInput['parameters'];
  readonly field: string;
}

/**
 * Visits of uncapped owners since the last flush, column by column: the link id and the
 * visitor's memoised day, profile field and digest (references to strings the visitor memo holds
 * anyway). The columns keep their capacity from flush to flush, so holding a flush interval of
 * visits allocates nothing per visit. Measured: keeping each request's own objects that long
 * (long enough to be promoted out of the young generation) cost more garbage collection than
 * the recording itself.
 */
export class VisitLog {
  private held = 0;
  get length(): number {
    return this.held;
  }
  private links = new Int32Array(1024);
  private readonly visitors: Visitor[] = [];

  /** Appends a visit; returns the number held. */
  push(linkId: number, visitor: Visitor): number {
    if (this.held === this.links.length) {
      const grown = new Int32Array(this.links.length * 2);
      grown.set(this.links);
      this.links = grown;
    }
    this.links[this.held] = linkId;
    this.visitors[this.held] = visitor;
    return ++this.held;
  }

  /** Empties the log, keeping its capacity but no visitor the memo has since let go. */
  clear(): void {
    this.visitors.fill(undefined as unknown as Visitor, 0, this.held);
    this.held = 0;
  }

  linkAt(i: number): number {
    return this.links[i];
  }
  visitorAt(i: number): Visitor {
    return this.visitors[i];
  }
}

/**
 * The visits of a log grouped into buckets for a flush: each bucket holds every visit of its
 * links, and all its links are of one statistics partition (buckets are in partition order), so
 * a flush aggregates, serialises and sends a bucket's link-days in one turn of the event loop.
 * The link-days then live for a round trip to Redis instead of the whole flush; held from the
 * first visit's aggregation to the last chunk's write (~100 ms for 10 000 link-days), they
 * outlived young-generation collections and were copied and promoted by them, which doubled
 * the cold redirect's p99.
 *
 * The arrays are typed and kept from flush to flush: ordering a log allocates nothing.
 */
export class VisitOrder {
  /** Visit indices, bucket by bucket. */
  private order = new Int32Array(1024);
  /** Each visit's bucket (by visit index), from `sort`'s counting pass to its placing pass. */
  private bucketOfVisit = new Int32Array(1024);
  /** `starts[b]`..`starts[b + 1]`: bucket b's range of `order`. */
  private starts = new Int32Array(64);
  private next = new Int32Array(64);
  private perPartition = 1;
  /** Buckets of the last `sort`. */
  buckets = 0;

  /**
   * Orders visits 0..`held` of `log` into `partitions` × k buckets, k such that a bucket holds
   * about `perBucket` visits (so at most about that many link-days). `partitionOf` is the
   * statistics keys' own (StatsKeys.partitionOf, 0..`partitions` - 1): a bucket's chunks name
   * keys of that partition only.
   */
  sort(
    log: VisitLog,
    held: number,
    partitions: number,
    partitionOf: (linkId: number) => number,
    perBucket: number,
  ): void {
    const per = Math.max(1, Math.ceil(held / (partitions * perBucket)));
    const buckets = partitions * per;
    this.perPartition = per;
    this.buckets = buckets;
    if (this.order.length < held) {
      this.order = new Int32Array(grownTo(held));
      this.bucketOfVisit = new Int32Array(this.order.length);
    }
    if (this.starts.length <= buckets) {
      this.starts = new Int32Array(grownTo(buckets + 1));
      this.next = new Int32Array(this.starts.length);
    }
    const { order, bucketOfVisit, starts, next } = this;
    starts.fill(0, 0, buckets + 1);
    for (let i = 0; i < held; i++) {
      const linkId = log.linkAt(i);
      // within its partition's `per` buckets, one by a multiplicative hash of the id
      const b =
        partitionOf(linkId) * per + (per === 1 ? 0 : (Math.imul(linkId, 0x9e3779b1) >>> 0) % per);
      bucketOfVisit[i] = b;
      starts[b + 1]++;
    }
    for (let b = 0; b < buckets; b++) starts[b + 1] += starts[b];
    next.set(starts.subarray(0, buckets));
    for (let i = 0; i < held; i++) order[next[bucketOfVisit[i]]++] = i;
  }

  /** The statistics partition of bucket `b`'s links. */
  partitionOf(b: number): number {
    return Math.floor(b / this.perPartition);
  }

  /** Bucket `b`'s visits of `log` aggregated per link and day, added to `out`. */
  aggregate(log: VisitLog, b: number, out: LinkDay[]): void {
    const { order } = this;
    // per day (one, except across midnight), per link
    let day = '';
    let links: Map<number, LinkDay> | undefined;
    let others: Map<string, Map<number, LinkDay>> | undefined;
    for (let i = this.starts[b], end = this.starts[b + 1]; i < end; i++) {
      const at = order[i];
      const linkId = log.linkAt(at);
      const v = log.visitorAt(at);
      let byLink: Map<number, LinkDay>;
      if (links && v.day === day) byLink = links;
      else if (!links) {
        day = v.day;
        byLink = links = new Map();
      } else {
        others ??= new Map();
        byLink = others.get(v.day) ?? new Map();
        others.set(v.day, byLink);
      }
      const found = byLink.get(linkId);
      if (found) found.add(v.field, v.digest);
      else {
        const created = new LinkDay(linkId, v.day, v.field, v.digest);
        byLink.set(linkId, created);
        out.push(created);
      }
    }
  }
}

function grownTo(n: number): number {
  let size = 1024;
  while (size < n) size *= 2;
  return size;
}
