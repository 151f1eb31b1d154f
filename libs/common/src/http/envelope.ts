/**
 * What a controller returns for a paginated list; the envelope interceptor turns it into
 * `{error: "0", data: {result, perpage, currentpage, nextpage, maxpage, [key]: items}}`.
 */
export class Paginated<T> {
  constructor(
    readonly key: string,
    readonly items: T[],
    readonly total: number,
    readonly perpage: number,
    readonly page: number,
  ) {}

  get maxpage(): number {
    return Math.max(1, Math.ceil(this.total / this.perpage));
  }

  get nextpage(): number {
    return this.page < this.maxpage ? this.page + 1 : 0;
  }

  toBody() {
    return {
      error: '0' as const,
      data: {
        result: this.total,
        perpage: this.perpage,
        currentpage: this.page,
        nextpage: this.nextpage,
        maxpage: this.maxpage,
        [this.key]: this.items,
      },
    };
  }
}

/**
 * Wraps a controller's result in the documented success envelope: a Paginated becomes the list
 * envelope; any other object gets `error: 0` first (`{message}` → `{error: 0, message}`).
 */
export function envelope(result: unknown): unknown {
  if (result instanceof Paginated) return result.toBody();
  if (result && typeof result === 'object' && !Array.isArray(result)) {
    return { error: 0, ...(result as Record<string, unknown>) };
  }
  return { error: 0, data: result ?? null };
}
