/**
 * Remembers when names (cache keys or tags) were last invalidated, so that a read begun before an
 * invalidation does not put what it read into a cache afterwards.
 *
 * Every invalidation takes the next sequence number; a read notes `mark()` when it starts and,
 * when it ends, asks `unchangedSince(mark, names)`. Memory is bounded: past `capacity` names the
 * oldest are forgotten and `floor` rises to their sequence, so a read older than a forgotten
 * invalidation is treated as stale (never cached), which is safe.
 */
export class InvalidationLog {
  private seq = 0;
  private floor = 0;
  /** name → sequence of its last invalidation, oldest first (Map keeps insertion order). */
  private readonly last = new Map<string, number>();

  constructor(private readonly capacity = 10_000) {}

  mark(): number {
    return this.seq;
  }

  /** Records an invalidation of `names`. */
  invalidate(names: Iterable<string>): void {
    const at = ++this.seq;
    for (const name of names) {
      this.last.delete(name);
      this.last.set(name, at);
    }
    while (this.last.size > this.capacity) {
      const [oldest, seq] = this.last.entries().next().value as [string, number];
      this.last.delete(oldest);
      if (seq > this.floor) this.floor = seq;
    }
  }

  /** Everything is invalid from now on (e.g. messages may have been missed). */
  invalidateAll(): void {
    this.floor = ++this.seq;
    this.last.clear();
  }

  /** True when none of `names` was invalidated after `mark` (nor everything). */
  unchangedSince(mark: number, names: readonly string[]): boolean {
    if (this.floor > mark) return false;
    for (const name of names) {
      const at = this.last.get(name);
      if (at !== undefined && at > mark) return false;
    }
    return true;
  }
}
