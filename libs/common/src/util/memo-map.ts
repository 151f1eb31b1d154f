/**
 * A bounded memo for the request path (user agents, visitors, owners' caps): at most `max`
 * entries, the recently used kept. Two generations of plain Maps: a hit costs one Map lookup (an
 * entry found in the old generation is copied to the young one), and once the young generation
 * holds max/2 entries the old one is dropped whole. A true LRU updates its recency list on every
 * hit, and under load those extra memory touches cost more than the lookup itself (profile of the
 * hot redirect); a memo only loses a recomputation when it forgets early.
 */
export class MemoMap<K, V> {
  private young = new Map<K, V>();
  private old = new Map<K, V>();
  private readonly half: number;

  constructor(max: number) {
    if (!Number.isInteger(max) || max < 2) throw new Error(`MemoMap: max must be an integer ≥ 2`);
    this.half = max >> 1;
  }

  get(key: K): V | undefined {
    const value = this.young.get(key);
    if (value !== undefined) return value;
    const old = this.old.get(key);
    if (old !== undefined) {
      this.old.delete(key);
      this.set(key, old);
    }
    return old;
  }

  set(key: K, value: V): void {
    if (!this.young.has(key) && this.young.size >= this.half) {
      this.old = this.young;
      this.young = new Map();
    }
    this.young.set(key, value);
  }

  delete(key: K): void {
    this.young.delete(key);
    this.old.delete(key);
  }

  clear(): void {
    this.young.clear();
    this.old.clear();
  }

  /** Entries held (both generations). */
  get size(): number {
    return this.young.size + this.old.size;
  }
}
