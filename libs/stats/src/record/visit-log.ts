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

/** Adds visits `from`..`to` of `log` to the link-days of `byDay` (new ones also to `out`). */
export function aggregate(
  log: VisitLog,
  from: number,
  to: number,
  byDay: Map<string, Map<number, LinkDay>>,
  out: LinkDay[],
): void {
  for (let i = from; i < to; i++) {
    const linkId = log.linkAt(i);
    const v = log.visitorAt(i);
    let links = byDay.get(v.day);
    if (!links) byDay.set(v.day, (links = new Map()));
    const b = links.get(linkId);
    if (b) b.add(v.field, v.digest);
    else {
      const created = new LinkDay(linkId, v.day, v.field, v.digest);
      links.set(linkId, created);
      out.push(created);
    }
  }
}
