/**
 * BENCH_PROBE: loaded into a measured server (`node --require <this, transpiled>`), it answers
 * SIGUSR2 by writing what only the process itself can count to `<BENCH_PROBE_DIR>/<pid>.json`:
 * event-loop turns and the I/O events they handled (libuv's metrics), garbage collections by
 * kind with their time, and the bytes the heap allocated (V8's GC profiler: the heap's size
 * before each collection less its size after the previous one, plus what was allocated since
 * the last). The bench reads it before and after a run (probeCounts) beside what /proc tells of
 * the process from outside (system calls, context switches, each thread's CPU and run-queue
 * time), and divides by the requests of the run. These counts, unlike req/s, do not move with
 * what else the machine does.
 */
import { appendFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { GCProfiler, getHeapStatistics } from 'node:v8';

interface HeapState {
  heapStatistics: { usedHeapSize: number };
  heapSpaceStatistics: Array<{ spaceName: string; spaceUsedSize: number }>;
}

interface GcStatistics {
  gcType: string;
  cost: number;
  beforeGC: HeapState;
  afterGC: HeapState;
}

/**
 * BENCH_PROBE_SPACES=1: each collection's change of every heap space (used bytes before → after),
 * appended at every answer to `<pid>.spaces.log`: what a scavenge promotes (old space grows across
 * it), what is allocated straight into old space (it grows between collections), the survivors.
 */
const spaces = process.env.BENCH_PROBE_SPACES === '1';
const spaceSizes = (h: HeapState) =>
  new Map(h.heapSpaceStatistics.map((s) => [s.spaceName, s.spaceUsedSize]));
function spaceLine(s: GcStatistics): string {
  const [before, after] = [spaceSizes(s.beforeGC), spaceSizes(s.afterGC)];
  const changed = [...after]
    .filter(([name, size]) => before.get(name) !== size)
    .map(
      ([name, size]) => `${name} ${before.get(name)} → ${size} (${size - (before.get(name) ?? 0)})`,
    );
  return `${s.gcType} ${Math.round(s.cost)} µs: ${changed.join(', ')}`;
}

const dir = process.env.BENCH_PROBE_DIR as string;
let profiler = new GCProfiler();
profiler.start();
const totals = { scavenges: 0, majors: 0, gcUs: 0, allocated: 0 };
let afterLast = getHeapStatistics().used_heap_size;
let seq = 0;

/**
 * BENCH_PROBE_HEAP=1: V8's sampling heap profiler, garbage included (what was allocated, not what
 * is still held); BENCH_PROBE_HEAP=survivors: only what minor collections did not free (what reached
 * old space, promoted or pretenured, whether a full collection took it later or not). Written at every answer as `<pid>.<seq>.heapprofile` (Chrome's format) and
 * started again: the file of an answer covers the time since the one before.
 */
const heapMode = process.env.BENCH_PROBE_HEAP;
const heap = heapMode === '1' || heapMode === 'survivors' ? new Session() : null;
/** `survivors`: only what young-generation collections did not free (promoted or pretenured). */
const survivorsOnly = heapMode === 'survivors';
const startSampling = () =>
  heap?.post('HeapProfiler.startSampling', {
    samplingInterval: 4096,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: !survivorsOnly,
  } as object);
if (heap) {
  heap.connect();
  startSampling();
}

process.on('SIGUSR2', () => {
  const { statistics } = profiler.stop() as unknown as { statistics: GcStatistics[] };
  profiler = new GCProfiler();
  profiler.start();
  for (const s of statistics) {
    totals.allocated += s.beforeGC.heapStatistics.usedHeapSize - afterLast;
    afterLast = s.afterGC.heapStatistics.usedHeapSize;
    totals.gcUs += s.cost;
    if (s.gcType === 'Scavenge' || s.gcType === 'MinorMarkSweep') totals.scavenges += 1;
    else if (s.gcType === 'MarkSweepCompact') totals.majors += 1;
  }
  const uv = (
    performance as unknown as {
      nodeTiming: { uvMetricsInfo: { loopCount: number; events: number } };
    }
  ).nodeTiming.uvMetricsInfo;
  const at = ++seq;
  if (spaces)
    appendFileSync(
      join(dir, `${process.pid}.spaces.log`),
      `answer ${at}\n${statistics.map(spaceLine).join('\n')}\n`,
    );
  if (heap)
    heap.post('HeapProfiler.stopSampling', (err, result) => {
      if (!err)
        writeFileSync(
          join(dir, `${process.pid}.${at}.heapprofile`),
          JSON.stringify(result.profile),
        );
      startSampling();
    });
  writeFileSync(
    join(dir, `${process.pid}.json`),
    JSON.stringify({
      seq: at,
      turns: uv.loopCount,
      events: uv.events,
      ...totals,
      allocated: totals.allocated + getHeapStatistics().used_heap_size - afterLast,
    }),
  );
});
