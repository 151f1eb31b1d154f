/** A counting semaphore: at most `size` holders at a time, the others wait in arrival order. */
export class RenderSlots {
  private busy = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(readonly size: number) {
    if (!Number.isInteger(size) || size < 1)
      throw new Error('RenderSlots size must be a positive integer');
  }

  /** Runs `work` once a slot is free, and frees the slot when it settles. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.busy >= this.size) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.busy += 1;
    try {
      return await work();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.busy -= 1;
    }
  }

  get inUse(): number {
    return this.busy;
  }

  get queued(): number {
    return this.waiting.length;
  }
}
