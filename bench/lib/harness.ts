/**
 * The shared benchmark harness: the server under test runs as a Node process of its own pinned to
 * core 0 (`taskset -c 0`), the load comes from `wrk` pinned to core 1, and every measured run
 * carries the proof that the generator was not the bottleneck:
 *
 * - server CPU: utime + stime of the server process(es) from /proc/<pid>/stat before and after
 *   the run (all threads, 10 ms ticks), as µs per request and as utilisation of its core;
 * - generator CPU: wrk reads its own /proc/self/stat when it finishes (see LUA_DONE), so the
 *   figure covers exactly its own run;
 * - core busy: /proc/stat of cores 0 and 1 over the run, to tell a server that waited for
 *   requests (its core had idle time) from one that shared its core with other processes.
 *
 * Verdicts (`headroom`): GENERATOR when wrk used ≥ 90 % of its core, or when a CPU-bound
 * baseline (raw node:http 302) used < 90 % of core 0 while core 0 had idle time (the server
 * waited for requests: the generator could not keep it busy) — the bench fails then; CONTENDED
 * when that baseline got < 90 % of core 0 because other processes used the rest (figures are
 * noisy, the generator was not the limit; printed, not failed); ok otherwise.
 */
import { ChildProcess, execFileSync, spawn, SpawnOptions } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { readyLine, stop, waitHealthy } from '../../test/support/process';

export const SERVER_CORE = 0;
export const GENERATOR_CORE = 1;
/** Clock ticks per second of /proc (getconf CLK_TCK; 100 on Linux). */
const TICKS = 100;
/** The generator may use up to this share of its core. */
export const GENERATOR_MAX = 0.9;
/** A CPU-bound baseline must use at least this share of the server core. */
export const SERVER_MIN = 0.9;
/** A core busier than this was fully used (by the server or by others). */
const CORE_FULL = 0.95;

/** Installs wrk (Debian package) when missing. */
export function ensureWrk(): void {
  try {
    execFileSync('wrk', ['--version'], { stdio: 'ignore' });
    return;
  } catch (err) {
    // `wrk --version` exits 1 after printing its usage: it is installed
    if ((err as { status?: number }).status === 1) return;
  }
  console.log('wrk is missing: apt-get install -y wrk');
  execFileSync('apt-get', ['install', '-y', 'wrk'], { stdio: 'inherit' });
}

/** CPU time (µs) a process has used so far, all its threads: utime + stime of /proc/<pid>/stat. */
export function processCpuUs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // fields[0] is field 3 (state): utime is field 14, stime field 15
  return ((Number(fields[11]) + Number(fields[12])) * 1e6) / TICKS;
}

/** The data stores' processes: Postgres (every backend and helper) and Redis. */
const STORES = new Set(['postgres', 'redis-server']);

/**
 * CPU time (µs) the data stores' processes have used so far, summed over every such process
 * alive now (a backend that exits during a run takes its time with it: pools keep theirs).
 */
export function storesCpuUs(): Map<number, number> {
  const out = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      if (STORES.has(comm) || comm.startsWith('postgres:'))
        out.set(Number(name), processCpuUs(Number(name)));
    } catch {
      // the process ended meanwhile
    }
  }
  return out;
}

/** CPU (µs) the stores used between two `storesCpuUs` readings (a process started since: all of its own). */
function storesDelta(a: Map<number, number>, b: Map<number, number>): number {
  let sum = 0;
  for (const [pid, us] of b) sum += us - (a.get(pid) ?? 0);
  return sum;
}

/** CPU (µs) the stores used since a `storesCpuUs` reading. */
export function storesSince(before: Map<number, number>): number {
  return storesDelta(before, storesCpuUs());
}

/** Busy and total ticks of one core (/proc/stat; idle and iowait are not busy). */
function coreTicks(core: number): { busy: number; total: number } {
  const line = readFileSync('/proc/stat', 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`cpu${core} `));
  if (!line) return { busy: 0, total: 0 };
  const v = line.trim().split(/\s+/).slice(1, 9).map(Number);
  const total = v.reduce((s, x) => s + x, 0);
  return { busy: total - v[3] - v[4], total };
}

/**
 * What the machine under the servers did, read before and after a run: tasks stalled on I/O
 * (/proc/pressure/io, "some": at least one task waited for the disk), CPU time the hypervisor
 * gave to other guests (steal, /proc/stat), and the whole disks' reads (/proc/diskstats). A run
 * whose tail jumps for no reason of its own shows here whether it waited for the disk or the host.
 * Zeros where the kernel does not expose a file.
 */
interface HostReading {
  ioStallUs: number;
  steal: number;
  ticks: number;
  reads: number;
  readMs: number;
}

const readOr = (file: string): string => {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
};

/** Whole disks (not partitions, loop or RAM devices): the entries of /sys/block. */
const DISKS = new Set(
  (() => {
    try {
      return readdirSync('/sys/block').filter((d) => !/^(loop|ram|zram)/.test(d));
    } catch {
      return [];
    }
  })(),
);

function hostReading(): HostReading {
  const io = /^some .*total=(\d+)/m.exec(readOr('/proc/pressure/io'));
  const cpu = (/^cpu (.*)$/m.exec(readOr('/proc/stat'))?.[1] ?? '').trim().split(/\s+/).map(Number);
  let reads = 0;
  let readMs = 0;
  for (const l of readOr('/proc/diskstats').split('\n')) {
    const f = l.trim().split(/\s+/);
    if (!DISKS.has(f[2])) continue;
    reads += Number(f[3]);
    readMs += Number(f[6]);
  }
  return {
    ioStallUs: Number(io?.[1] ?? 0),
    steal: cpu[7] || 0,
    ticks: cpu.slice(0, 8).reduce((s, x) => s + (x || 0), 0),
    reads,
    readMs,
  };
}

function hostSince(a: HostReading, b: HostReading): RunResult['host'] {
  return {
    ioStallMs: (b.ioStallUs - a.ioStallUs) / 1000,
    steal: (b.steal - a.steal) / Math.max(1, b.ticks - a.ticks),
    diskReads: b.reads - a.reads,
    diskReadMs: b.readMs - a.readMs,
  };
}

/** Spawns `command` pinned to `core` (taskset execs it: the child's pid is the command's own). */
export function spawnPinned(
  core: number,
  command: string,
  args: string[],
  options: SpawnOptions,
): ChildProcess {
  return spawn('taskset', ['-c', String(core), command, ...args], options);
}

/** This checkout's built api (`npm run build`). */
export const API_MAIN = join(__dirname, '..', '..', 'dist', 'apps', 'api', 'main.js');

/**
 * The built api on core 0 as production runs it (NODE_ENV=production), `env` over this
 * process's environment; its standard output ignored, its errors shown.
 */
export function spawnApi(env: NodeJS.ProcessEnv): ChildProcess {
  return spawnPinned(SERVER_CORE, process.execPath, [API_MAIN], {
    env: { ...process.env, NODE_ENV: 'production', ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

// Stopping a process, awaiting its ready line or /health: the helper the e2e suites use too.
export { readyLine, stop, waitHealthy };

// ---------------------------------------------------------------- wrk scripts

/** One request of a wrk script's cycle: fields absent take the script's common values. */
export interface WrkRequest {
  method?: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface WrkScript {
  /** Headers of every request (`Host` with that exact case replaces wrk's). */
  headers?: Record<string, string>;
  /** The requests, sent in turn, over and over. */
  requests: WrkRequest[];
  /**
   * Lua statements run for each response with `status`, `headers`, `body` in scope; they may add
   * to the thread's `tally` table (name → number), which is summed over threads and reported.
   * Without it wrk parses no response bodies (cheapest).
   */
  onResponse?: string;
  /** Stop after this many responses (counted per wrk thread: use one thread). */
  limit?: number;
  /** Report the latency distribution (RunResult.latencies), so that runs can be pooled (pooledPercentile). */
  histogram?: boolean;
}

/** A Lua string literal (JSON's escapes are Lua's for printable ASCII). */
const lua = (s: string) => JSON.stringify(s);
const luaTable = (h: Record<string, string>) =>
  `{${Object.entries(h)
    .map(([k, v]) => `[${lua(k)}]=${lua(v)}`)
    .join(',')}}`;

/** What wrk prints last: its figures and its own CPU time, read from /proc/self/stat. */
const LUA_DONE = `
local threads = {}
function setup(thread) table.insert(threads, thread) end
function done(summary, latency, requests)
  local f = io.open("/proc/self/stat", "r")
  local stat = f:read("*a")
  f:close()
  local fields = {}
  for w in stat:match("%) (.*)"):gmatch("%S+") do fields[#fields + 1] = w end
  local sum = {}
  for _, t in ipairs(threads) do
    local tt = t:get("tally")
    if tt then for k, v in pairs(tt) do sum[k] = (sum[k] or 0) + v end end
  end
  local span = 0
  for _, t in ipairs(threads) do
    local a, b = t:get("first_us"), t:get("last_us")
    if b and b > 0 then span = math.max(span, b - a) end
  end
  local parts = {}
  for k, v in pairs(sum) do parts[#parts + 1] = string.format("%q:%d", k, v) end
  local e = summary.errors
  io.write(string.format(
    'WRKJSON {"requests":%d,"durationUs":%d,"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d,' ..
    '"p50Us":%d,"p99Us":%d,"p999Us":%d,"maxUs":%d,"meanUs":%.1f,"cpuTicks":%d,"spanUs":%d,"tally":{%s}}\\n',
    summary.requests, summary.duration, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(99), latency:percentile(99.9), latency.max, latency.mean,
    tonumber(fields[12]) + tonumber(fields[13]), span, table.concat(parts, ",")))
  -- the latency distribution as percentile:µs pairs (wrk's Lua gives percentiles, not its counts):
  -- every 0.5 up to 90, every 0.01 past it
  if histogram and summary.requests > 0 then
    local hist = {}
    for k = 1, 1180 do
      local p = k <= 180 and k / 2 or (9000 + k - 180) / 100
      -- wrk's 100th percentile is 0 (its rank is one past the count): the maximum instead
      hist[#hist + 1] = string.format("%.2f:%d", p, p < 100 and latency:percentile(p) or latency.max)
    end
    io.write("WRKHIST " .. table.concat(hist, ",") .. "\\n")
  end
end
`;

function scriptSource(s: WrkScript): string {
  const specs = s.requests
    .map(
      (r) =>
        `{${lua(r.method ?? 'GET')},${lua(r.path)},${r.headers ? luaTable(r.headers) : 'nil'},${r.body !== undefined ? lua(r.body) : 'nil'}}`,
    )
    .join(',\n');
  return `
local ffi = require("ffi")
ffi.cdef("typedef struct { long tv_sec; long tv_nsec; } bench_ts; int clock_gettime(int, bench_ts *);")
local ts = ffi.new("bench_ts")
local function now_us()
  ffi.C.clock_gettime(1, ts)
  return tonumber(ts.tv_sec) * 1000000 + tonumber(ts.tv_nsec) / 1000
end
first_us = 0
last_us = 0
local common = ${luaTable(s.headers ?? {})}
local specs = {
${specs}
}
local reqs = {}
local n = #specs
local i = 0
tally = {}
local seen = 0
local limit = ${s.limit ?? 0}
histogram = ${s.histogram ? 'true' : 'false'}
function init(args)
  for k, s in ipairs(specs) do
    local h = {}
    for name, v in pairs(common) do h[name] = v end
    if s[3] then for name, v in pairs(s[3]) do h[name] = v end end
    reqs[k] = wrk.format(s[1], s[2], h, s[4])
  end
end
function request()
  if first_us == 0 then first_us = now_us() end
  i = i + 1
  if i > n then i = 1 end
  return reqs[i]
end
${
  s.onResponse || s.limit
    ? `function response(status, headers, body)
  ${s.onResponse ?? ''}
  seen = seen + 1
  if limit > 0 and seen == limit then
    last_us = now_us()
    -- the parent stops wrk (SIGINT) on this line: wrk would otherwise wait out its duration
    io.write("WRKLIMIT\\n")
    io.flush()
    wrk.thread:stop()
  end
end`
    : ''
}
${LUA_DONE}`;
}

// ---------------------------------------------------------------- one measured run

export interface RunOptions {
  /** e.g. http://127.0.0.1:1234 */
  url: string;
  connections: number;
  seconds: number;
  script: WrkScript;
  /** Processes whose CPU is the server's (summed). */
  serverPids: number[];
  /** wrk threads (default 1: one core). */
  threads?: number;
  /** A baseline that is CPU-bound on core 0 (raw 302): it must use ≥ 90 % of its core. */
  cpuBound?: boolean;
}

export type Verdict = 'ok' | 'CONTENDED' | 'GENERATOR';

export interface RunResult {
  requests: number;
  seconds: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  p999Ms: number;
  /** Socket errors, timeouts and answers other than 2xx / 3xx. */
  errors: number;
  /** Server CPU per request, µs. */
  serverUs: number;
  /** Server CPU / wall time (1 = one full core). */
  serverUtil: number;
  /** CPU of Postgres and Redis (every process of theirs) per request, µs. */
  storesUs: number;
  /** wrk's CPU / wall time. */
  generatorUtil: number;
  core0Busy: number;
  core1Busy: number;
  /**
   * The machine during the run (see hostReading): ms that tasks stalled on I/O, the share of CPU
   * time stolen by the hypervisor, the disks' reads and the ms they took.
   */
  host: { ioStallMs: number; steal: number; diskReads: number; diskReadMs: number };
  verdict: Verdict;
  tally: Record<string, number>;
  /**
   * With WrkScript.histogram: the latency distribution as [µs, requests], in increasing µs (one
   * may repeat): each step of wrk's percentiles (every 0.5 % up to the 90th, every 0.01 % past
   * it) is its share of the requests, at the percentile that ends it.
   */
  latencies?: Array<[number, number]>;
}

/** Runs wrk once against `url` (pinned to core 1) and measures around it. */
export async function runWrk(o: RunOptions): Promise<RunResult> {
  const dir = mkdtempSync(join(tmpdir(), 'wrk-'));
  const file = join(dir, 'script.lua');
  writeFileSync(file, scriptSource(o.script));
  try {
    const cpu0 = o.serverPids.map(processCpuUs);
    const stores0 = storesCpuUs();
    const c0 = coreTicks(SERVER_CORE);
    const c1 = coreTicks(GENERATOR_CORE);
    const h0 = hostReading();
    const t0 = performance.now();
    const out = await new Promise<string>((resolve, reject) => {
      const child = spawnPinned(
        GENERATOR_CORE,
        'wrk',
        [
          `-t${o.threads ?? 1}`,
          `-c${o.connections}`,
          `-d${o.seconds}s`,
          '--timeout',
          '10s',
          '-s',
          file,
          o.url,
        ],
        { stdio: ['ignore', 'pipe', 'inherit'] },
      );
      let text = '';
      child.stdout?.on('data', (c: Buffer) => {
        text += c.toString();
        if (o.script.limit && text.includes('WRKLIMIT')) child.kill('SIGINT');
      });
      child.once('error', reject);
      child.once('exit', (code) =>
        code === 0 ? resolve(text) : reject(new Error(`wrk exited with ${code}: ${text}`)),
      );
    });
    const elapsed = (performance.now() - t0) * 1000;
    const cpu1 = o.serverPids.map(processCpuUs);
    const stores1 = storesCpuUs();
    const d0 = coreTicks(SERVER_CORE);
    const d1 = coreTicks(GENERATOR_CORE);
    const host = hostSince(h0, hostReading());
    const line = out.split('\n').find((l) => l.startsWith('WRKJSON '));
    if (!line) throw new Error(`wrk printed no summary:\n${out}`);
    const w = JSON.parse(line.slice(8)) as {
      requests: number;
      durationUs: number;
      connect: number;
      read: number;
      write: number;
      status: number;
      timeout: number;
      p50Us: number;
      p99Us: number;
      p999Us: number;
      cpuTicks: number;
      spanUs: number;
      tally: Record<string, number>;
    };
    // a run stopped at `limit` answers: from its first request to its limit-th answer
    const durationUs = o.script.limit && w.spanUs > 0 ? w.spanUs : w.durationUs;
    const requests = o.script.limit ? Math.min(w.requests, o.script.limit) : w.requests;
    const wall = Math.min(elapsed, Math.max(durationUs, elapsed - 200_000));
    const serverCpu = cpu1.reduce((s, c, i) => s + c - cpu0[i], 0);
    const busy = (a: typeof c0, b: typeof c0) => (b.busy - a.busy) / Math.max(1, b.total - a.total);
    const r: RunResult = {
      requests,
      seconds: durationUs / 1e6,
      rps: requests / (durationUs / 1e6),
      p50Ms: w.p50Us / 1000,
      p99Ms: w.p99Us / 1000,
      p999Ms: w.p999Us / 1000,
      errors: w.connect + w.read + w.write + w.status + w.timeout,
      serverUs: serverCpu / Math.max(1, requests),
      serverUtil: serverCpu / wall,
      storesUs: storesDelta(stores0, stores1) / Math.max(1, requests),
      generatorUtil: (w.cpuTicks * 1e6) / TICKS / wall,
      core0Busy: busy(c0, d0),
      core1Busy: busy(c1, d1),
      host,
      verdict: 'ok',
      tally: w.tally,
    };
    const hist = out.split('\n').find((l) => l.startsWith('WRKHIST '));
    if (hist) r.latencies = latencyShares(hist.slice(8), w.requests);
    r.verdict = headroom(r, o.cpuBound === true);
    return r;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A WRKHIST line's `percentile:µs` pairs as RunResult.latencies of a run of `requests`. */
function latencyShares(pairs: string, requests: number): Array<[number, number]> {
  let below = 0;
  return pairs.split(',').map((pair) => {
    const [p, us] = pair.split(':').map(Number);
    const share = ((p - below) / 100) * requests;
    below = p;
    return [us, share];
  });
}

/** Was the generator the bottleneck? (see the file's comment) */
export function headroom(r: RunResult, cpuBound: boolean): Verdict {
  if (r.generatorUtil >= GENERATOR_MAX) return 'GENERATOR';
  if (cpuBound && r.serverUtil < SERVER_MIN)
    return r.core0Busy < CORE_FULL ? 'GENERATOR' : 'CONTENDED';
  return 'ok';
}

/** Why a run got its verdict, in words. */
export function reason(r: RunResult): string {
  if (r.verdict === 'ok') return 'ok';
  if (r.generatorUtil >= GENERATOR_MAX) return `wrk used ${pct(r.generatorUtil)} of its core`;
  if (r.verdict === 'CONTENDED')
    return `server got ${pct(r.serverUtil)} of core ${SERVER_CORE}, other processes the rest`;
  return (
    `server used ${pct(r.serverUtil)} of core ${SERVER_CORE}, which had idle time: it waited for requests` +
    (r.core1Busy >= CORE_FULL
      ? ` (wrk starved: core ${GENERATOR_CORE} ${pct(r.core1Busy)} busy with other processes)`
      : '')
  );
}

// ---------------------------------------------------------------- rounds, medians, report

export const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/**
 * The `p`th percentile (ms) of every request of `runs` together (their WrkScript.histogram
 * distributions, each run weighing its requests): the least latency with at least p % of all the
 * requests at or under it. Five runs' p99 is that of five times the requests, which a few pauses
 * of one run no longer decide.
 */
export function pooledPercentile(runs: RunResult[], p: number): number {
  const counts = new Map<number, number>();
  for (const r of runs) {
    if (!r.latencies) throw new Error('pooledPercentile: a run without its latencies');
    for (const [us, n] of r.latencies) counts.set(us, (counts.get(us) ?? 0) + n);
  }
  const sorted = [...counts].sort((a, b) => a[0] - b[0]);
  const total = sorted.reduce((sum, [, n]) => sum + n, 0);
  const rank = (p / 100) * total;
  let seen = 0;
  for (const [us, n] of sorted) {
    seen += n;
    // a share's sum of floats may fall short of the exact rank by a rounding error
    if (seen >= rank * (1 - 1e-9)) return us / 1000;
  }
  return sorted.length ? sorted[sorted.length - 1][0] / 1000 : NaN;
}

/** The median of each figure over a scenario's runs. */
export function medianOf(runs: RunResult[]): RunResult {
  const pick = (f: (r: RunResult) => number) => median(runs.map(f));
  const worst: Verdict = runs.some((r) => r.verdict === 'GENERATOR')
    ? 'GENERATOR'
    : runs.some((r) => r.verdict === 'CONTENDED')
      ? 'CONTENDED'
      : 'ok';
  return {
    requests: pick((r) => r.requests),
    seconds: pick((r) => r.seconds),
    rps: pick((r) => r.rps),
    p50Ms: pick((r) => r.p50Ms),
    p99Ms: pick((r) => r.p99Ms),
    p999Ms: pick((r) => r.p999Ms),
    errors: runs.reduce((s, r) => s + r.errors, 0),
    serverUs: pick((r) => r.serverUs),
    serverUtil: pick((r) => r.serverUtil),
    storesUs: pick((r) => r.storesUs),
    generatorUtil: pick((r) => r.generatorUtil),
    core0Busy: pick((r) => r.core0Busy),
    core1Busy: pick((r) => r.core1Busy),
    host: {
      ioStallMs: pick((r) => r.host.ioStallMs),
      steal: pick((r) => r.host.steal),
      diskReads: pick((r) => r.host.diskReads),
      diskReadMs: pick((r) => r.host.diskReadMs),
    },
    verdict: worst,
    tally: runs[0]?.tally ?? {},
  };
}

const pct = (x: number) => `${(x * 100).toFixed(0).padStart(3)} %`;

/** One line of figures. */
export function line(name: string, r: RunResult, width = 30): string {
  const why = r.verdict === 'ok' ? '' : ` (${reason(r)})`;
  return (
    `${name.padEnd(width)} ${r.rps.toFixed(0).padStart(7)} req/s  p50 ${r.p50Ms.toFixed(2).padStart(6)} ms  p99 ${r.p99Ms.toFixed(2).padStart(6)} ms  p99.9 ${r.p999Ms.toFixed(1).padStart(5)} ms` +
    `  server ${r.serverUs.toFixed(1).padStart(6)} µs/req ${pct(r.serverUtil)} of core 0 (busy ${pct(r.core0Busy)})` +
    `  stores ${r.storesUs.toFixed(0).padStart(5)} µs/req` +
    `  wrk ${pct(r.generatorUtil)}  ${r.verdict}${why}${r.errors ? `  ${r.errors} ERRORS` : ''}` +
    hostNote(r.host)
  );
}

/** The run's machine, when it did something worth telling (I/O stalls, steal, disk reads). */
function hostNote(h: RunResult['host']): string {
  const parts: string[] = [];
  if (h.ioStallMs >= 1) parts.push(`I/O stall ${h.ioStallMs.toFixed(0)} ms`);
  if (h.steal >= 0.005) parts.push(`steal ${(h.steal * 100).toFixed(1)} %`);
  if (h.diskReads > 0)
    parts.push(`${h.diskReads} disk reads (${(h.diskReadMs / h.diskReads).toFixed(2)} ms each)`);
  return parts.length ? `  host: ${parts.join(', ')}` : '';
}

export const HEADER =
  'req/s: wrk-counted answers / s; server µs/req: server process CPU (utime+stime) per request;\n' +
  '"of core 0": server CPU / wall time; busy: core 0 used by anything;\n' +
  'stores µs/req: CPU of every Postgres and Redis process per request; wrk: generator CPU / wall time.\n' +
  'verdict: ok | CONTENDED (core 0 shared with other processes: noisy, not generator-bound) | GENERATOR (fails)';

/** Summary of verdicts: prints a loud line and returns false when a run was generator-bound. */
export function checkHeadroom(all: Array<[string, RunResult[]]>): boolean {
  const bound = all.filter(([, runs]) => runs.some((r) => r.verdict === 'GENERATOR'));
  const contended = all.filter(([, runs]) => runs.some((r) => r.verdict === 'CONTENDED'));
  const maxGen = Math.max(...all.flatMap(([, runs]) => runs.map((r) => r.generatorUtil)));
  console.log(
    `\ngenerator headroom: wrk used at most ${(maxGen * 100).toFixed(0)} % of core ${GENERATOR_CORE} (limit ${GENERATOR_MAX * 100} %)`,
  );
  if (contended.length)
    console.log(
      `  NOTE: core ${SERVER_CORE} was shared with other processes in ${contended.map(([n]) => n).join(', ')}: figures are noisy (not generator-bound)`,
    );
  if (bound.length) {
    console.log(
      `  FAIL: THE LOAD GENERATOR WAS THE BOTTLENECK in ${bound.map(([n]) => n).join(', ')}: these figures measure wrk, not the server`,
    );
    return false;
  }
  console.log('  ok: no run was generator-bound');
  return true;
}

// ---------------------------------------------------------------- plain-node servers

/**
 * Transpiles TypeScript files (no type imports across them needed at run time) into
 * node_modules/.cache/bench (so that their imports of packages resolve) and returns the path of
 * the first, with relative imports of one another rewritten to their place there: a measured
 * process runs under plain `node`, never ts-node (whose REPL module loads
 * `domain`, which makes every EventEmitter slower).
 */
export function compiled(files: Record<string, string>): string {
  const ts = require('typescript') as typeof import('typescript');
  const dir = join(__dirname, '..', '..', 'node_modules', '.cache', 'bench');
  mkdirSync(dir, { recursive: true });
  const out: string[] = [];
  for (const [name, source] of Object.entries(files)) {
    const { outputText } = ts.transpileModule(readFileSync(source, 'utf8'), {
      compilerOptions: {
        module: ts.ModuleKind.CommonJS,
        target: ts.ScriptTarget.ES2022,
        esModuleInterop: true,
      },
    });
    const path = join(dir, `${name}.js`);
    const text = outputText.replace(/require\("(\.[^"]*\/)?([^"/]+)"\)/g, (all, _dir, base) =>
      base in files ? `require("./${base}")` : all,
    );
    writeFileSync(path, text);
    out.push(path);
  }
  return out[0];
}

/** Spawns a built or transpiled server pinned to the server core; resolves once `ready` matches its stdout. */
export async function startPinnedServer(
  args: string[],
  env: NodeJS.ProcessEnv,
  ready: RegExp,
): Promise<{ child: ChildProcess; match: RegExpMatchArray }> {
  const child = spawnPinned(SERVER_CORE, process.execPath, args, {
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return { child, match: await readyLine(child, ready, args.join(' ')) };
}
