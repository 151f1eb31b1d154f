/**
 * Per-request counts of a server over a run (BENCH_PROBE=1 of bench:redirect): the process seen
 * from outside (/proc) and from inside (bench/lib/probe.ts, loaded with `--require`). Counts, not
 * times, so they hold on a shared machine: system calls, event-loop turns, bytes allocated.
 *
 * - `/proc/<pid>/io` syscr / syscw: read-like and write-like system calls of every thread (the
 *   sockets' read and writev; not epoll_wait, which is one a turn);
 * - `/proc/<pid>/task/<tid>/status`: the main thread's voluntary context switches (it slept in
 *   epoll_wait with nothing to do) and involuntary ones (another thread or process took its core);
 * - `/proc/<pid>/task/<tid>/schedstat`: each thread's time on a CPU and waiting in a run queue:
 *   the main thread's wait while the core is busy with something else (the garbage collector's
 *   helper threads of the same process, or another process) is what spikes a pinned server's p99;
 * - utime / stime of `/proc/<pid>/stat`: user and kernel CPU;
 * - the probe: turns of the event loop and the I/O events they handled, scavenges and full
 *   collections, GC time and bytes allocated.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { compiled } from './harness';

export interface ProbeCounts {
  syscr: number;
  syscw: number;
  voluntary: number;
  involuntary: number;
  /** ns: the main thread on a CPU / waiting for one; the other threads together. */
  mainRun: number;
  mainWait: number;
  othersRun: number;
  othersWait: number;
  /** µs */
  user: number;
  system: number;
  turns: number;
  events: number;
  scavenges: number;
  majors: number;
  gcUs: number;
  allocated: number;
}

/** The probe's arguments for `node` (before the script) and the folder it writes to. */
export function probeArgs(): { args: string[]; dir: string } {
  const script = compiled({ probe: join(__dirname, 'probe.ts') });
  const dir = mkdtempSync(join(tmpdir(), 'bench-probe-'));
  return { args: ['--require', script], dir };
}

const field = (text: string, name: string) =>
  Number(new RegExp(`^${name}:?\\s+(\\d+)`, 'm').exec(text)?.[1] ?? 0);

/** The counts of process `pid` now (its probe asked to write them; waits for its answer). */
export async function probeCounts(pid: number, dir: string): Promise<ProbeCounts> {
  const file = join(dir, `${pid}.json`);
  const before = existsSync(file)
    ? (JSON.parse(readFileSync(file, 'utf8')) as { seq: number }).seq
    : 0;
  process.kill(pid, 'SIGUSR2');
  let inside: Record<string, number> | null = null;
  for (let i = 0; i < 3000 && !inside; i++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    try {
      const read = JSON.parse(readFileSync(file, 'utf8')) as Record<string, number>;
      if (read.seq > before) inside = read;
    } catch {
      // not written yet, or being written
    }
  }
  if (!inside) throw new Error(`probe of ${pid} did not answer`);
  const io = readFileSync(`/proc/${pid}/io`, 'utf8');
  const main = readFileSync(`/proc/${pid}/task/${pid}/status`, 'utf8');
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const c: ProbeCounts = {
    syscr: field(io, 'syscr'),
    syscw: field(io, 'syscw'),
    voluntary: field(main, 'voluntary_ctxt_switches'),
    involuntary: field(main, 'nonvoluntary_ctxt_switches'),
    mainRun: 0,
    mainWait: 0,
    othersRun: 0,
    othersWait: 0,
    user: Number(fields[11]) * 1e4,
    system: Number(fields[12]) * 1e4,
    turns: inside.turns,
    events: inside.events,
    scavenges: inside.scavenges,
    majors: inside.majors,
    gcUs: inside.gcUs,
    allocated: inside.allocated,
  };
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    let run = 0;
    let wait = 0;
    try {
      [run, wait] = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8')
        .split(' ')
        .map(Number);
    } catch {
      continue; // the thread ended
    }
    if (Number(tid) === pid) {
      c.mainRun += run;
      c.mainWait += wait;
    } else {
      c.othersRun += run;
      c.othersWait += wait;
    }
  }
  return c;
}

/** The counts of a run per request, in one line. */
export function perRequest(a: ProbeCounts, b: ProbeCounts, requests: number): string {
  const per = (k: keyof ProbeCounts) => (b[k] - a[k]) / Math.max(1, requests);
  const turns = b.turns - a.turns;
  return (
    `syscalls read ${per('syscr').toFixed(3)} write ${per('syscw').toFixed(3)}` +
    `  turns ${per('turns').toFixed(3)} (${((b.events - a.events) / Math.max(1, turns)).toFixed(1)} events, ${(requests / Math.max(1, turns)).toFixed(1)} requests a turn)` +
    `  ctx-switches vol ${per('voluntary').toFixed(3)} invol ${per('involuntary').toFixed(4)}` +
    `  user ${per('user').toFixed(1)} sys ${per('system').toFixed(1)} µs` +
    `  main wait ${(per('mainWait') / 1000).toFixed(2)} µs, other threads ${(per('othersRun') / 1000).toFixed(2)} µs` +
    `  allocated ${per('allocated').toFixed(0)} B, scavenges/10k ${(per('scavenges') * 1e4).toFixed(2)}, full/1M ${(per('majors') * 1e6).toFixed(1)}, GC ${per('gcUs').toFixed(2)} µs`
  );
}
