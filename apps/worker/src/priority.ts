import { existsSync, readdirSync } from 'node:fs';
import { setPriority } from 'node:os';

/**
 * WORKER_NICE for every thread: this one (threads started from now on inherit it) and those
 * already running (Linux: each thread has its own niceness; modules such as sharp start theirs
 * when they load).
 */
export function lowerPriority(nice: number): void {
  try {
    setPriority(nice);
    for (const tid of existsSync('/proc/self/task') ? readdirSync('/proc/self/task') : []) {
      try {
        setPriority(Number(tid), nice);
      } catch {
        // the thread ended meanwhile
      }
    }
  } catch (err) {
    console.log(
      JSON.stringify({ level: 40, msg: `WORKER_NICE not applied: ${(err as Error).message}` }),
    );
  }
}
