import { Injectable } from '@nestjs/common';

/**
 * Turns of the CPU-bound part of imports (validating a batch of rows) in this worker process, one
 * at a time, first come first served. A user has one running import and a running import asks
 * for one turn at a time, so the waiting turns belong to different users and FIFO serves them
 * round-robin: a 1-row import waits for at most one batch of each import ahead of it, never for
 * a whole file.
 */
@Injectable()
export class ImportTurns {
  private tail: Promise<void> = Promise.resolve();

  /** Runs `work` in its turn; the next turn starts when it settles. */
  take<T>(work: () => Promise<T>): Promise<T> {
    const result = this.tail.then(work);
    this.tail = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }
}
