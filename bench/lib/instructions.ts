/**
 * Instructions per request, counted by valgrind's callgrind: the repeatable figure beside the
 * wall-clock one. req/s and CPU µs per request move by 10-20 % between rounds on a shared
 * machine (see the baseline-stability line of bench:redirect); the number of user-space
 * instructions a server executes for a request does not, whatever else the machine does.
 * It leaves out the kernel (the socket's read and write), which every server pays alike.
 *
 * The server runs under `valgrind --tool=callgrind --instr-atstart=no` (pinned to the server
 * core; 20-50× slower, which is why no wall-clock figure is taken there). A counted client in
 * this process sends exactly the requests of a warm-up (V8 optimises the hot functions, caches
 * fill), then `callgrind_control -i on` starts counting, WINDOW requests are sent,
 * `callgrind_control -i off` and `-d` write that window's count. Several windows; the quietest
 * is the figure: the request path's own cost. Work the server does by the clock (cache entries
 * that expire and are read again, the visit flush's timer, V8 recompiling a function after such
 * a rare path) happens 20-50× more often per request under valgrind than at full speed, and
 * lands in some windows and not others: every window is printed, and the median beside the
 * quietest.
 */
import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { median, readyLine, SERVER_CORE, stop, WrkRequest } from './harness';

/** Whether valgrind (with callgrind_control) is installed. */
export function haveValgrind(): boolean {
  try {
    execFileSync('valgrind', ['--version'], { stdio: 'ignore' });
    execFileSync('which', ['callgrind_control'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export interface CountedServer {
  child: ChildProcess;
  port: number;
  dir: string;
}

/**
 * Starts `node <args>` under callgrind, instrumentation off, pinned to the server core; resolves
 * once `ready` matches its stdout (its first group, when there is one, is the port).
 */
export async function startCounted(
  args: string[],
  env: NodeJS.ProcessEnv,
  ready: RegExp,
  port?: number,
): Promise<CountedServer> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-cg-'));
  const child = spawn(
    'taskset',
    [
      '-c',
      String(SERVER_CORE),
      'valgrind',
      '--tool=callgrind',
      '--instr-atstart=no',
      // V8 writes and rewrites machine code outside any file
      '--smc-check=all-non-file',
      `--callgrind-out-file=${join(dir, 'cg.out')}`,
      process.execPath,
      // V8's memory reducer takes a server that allocates slowly for an idle one and runs full
      // garbage collections to shrink its heap: under valgrind every server allocates 20-50×
      // slower, and got a full collection every ~60 000 requests instead of every ~2 million
      '--no-memory-reducer',
      ...args,
    ],
    { env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const match = await readyLine(child, ready, `callgrind: ${args.join(' ')}`);
  return { child, dir, port: port ?? Number(match[1]) };
}

/**
 * Sends exactly `count` requests (the `requests` in turn, with their bodies) over `connections`
 * keep-alive connections, one at a time on each; resolves with the number answered with `status`.
 * Answers must have no body or a Content-Length (redirects, not-modified, the api's JSON).
 */
export function sendCounted(
  port: number,
  requests: WrkRequest[],
  common: Record<string, string>,
  count: number,
  connections = 50,
  status = 302,
): Promise<{ ok: number; other: number; seen: string[] }> {
  const wire = requests.map((r) => {
    const headers: Record<string, string> = { ...common, ...r.headers };
    if (r.body !== undefined) headers['Content-Length'] = String(Buffer.byteLength(r.body));
    const lines = Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`);
    return Buffer.from(
      `${r.method ?? 'GET'} ${r.path} HTTP/1.1\r\n${lines.join('')}\r\n${r.body ?? ''}`,
    );
  });
  const expect = `HTTP/1.1 ${status} `;
  let sent = 0;
  let ok = 0;
  let other = 0;
  /** The status lines of the other answers (the first few). */
  const seen: string[] = [];
  return new Promise((resolve, reject) => {
    let open = connections;
    for (let c = 0; c < connections; c++) {
      const socket = connect(port, '127.0.0.1');
      let buf = '';
      let want = -1;
      const next = () => {
        if (sent < count) socket.write(wire[sent++ % wire.length]);
        else socket.end();
      };
      socket.on('connect', next);
      socket.on('data', (d: Buffer) => {
        buf += d.toString('latin1');
        for (;;) {
          if (want < 0) {
            const end = buf.indexOf('\r\n\r\n');
            if (end < 0) return;
            const head = buf.slice(0, end);
            const length = /\r\ncontent-length: *(\d+)/i.exec(head);
            if (head.startsWith(expect)) ok += 1;
            else {
              other += 1;
              if (seen.length < 5) seen.push(head.slice(0, head.indexOf('\r\n')));
            }
            buf = buf.slice(end + 4);
            want = length ? Number(length[1]) : 0;
          }
          if (buf.length < want) return;
          buf = buf.slice(want);
          want = -1;
          next();
        }
      });
      socket.on('close', () => {
        if (--open === 0) resolve({ ok, other, seen });
      });
      socket.on('error', reject);
    }
  });
}

/** The Ir total and the file of the dump callgrind writes next in `dir` (waited for: up to 30 s). */
async function nextDump(
  dir: string,
  before: Set<string>,
): Promise<{ total: number; file: string }> {
  for (let tries = 0; tries < 300; tries++) {
    const fresh = readdirSync(dir).filter((f) => /^cg\.out\.\d+$/.test(f) && !before.has(f));
    if (fresh.length > 1) throw new Error(`callgrind: expected one new dump, found ${fresh}`);
    const total = fresh.length
      ? /^totals: (\d+)/m.exec(readFileSync(join(dir, fresh[0]), 'utf8'))
      : null;
    if (total) {
      before.add(fresh[0]);
      return { total: Number(total[1]), file: join(dir, fresh[0]) };
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`callgrind: no dump written in ${dir}`);
}

export interface Counted {
  /** Instructions per request of each window. */
  windows: number[];
  /** The quietest window's: the figure reported and compared. */
  min: number;
  median: number;
  /** Every window's work over every window's requests: the clock's work included, as in a long run. */
  mean: number;
  /**
   * With `idleMs`: the instructions a second the server spends with no request (its timers), and
   * each window's count with that rate times the window's duration taken out (`perRequest`, its
   * quietest `perRequestMin` and median `perRequestMedian`). At full speed a request costs
   * `perRequest` plus `idlePerSecond` over the requests a second: under valgrind the clock's
   * share is 20-50× what it is at full speed, and depends on how fast the loaded machine let the
   * window run, so two builds are compared on these figures and on the idle rate, not on the
   * raw windows.
   */
  idlePerSecond?: number;
  perRequest?: number[];
  perRequestMin?: number;
  perRequestMedian?: number;
  /** Each window's callgrind dump (removed with the server's folder by stopCounted). */
  files: string[];
}

/**
 * Counts one traffic pattern on a counted server: `warm` requests uncounted, then `windows`
 * windows of `window` requests, each its own dump. Throws when an answer is not the expected
 * status (the count would then be of something else).
 */
export async function countInstructions(
  server: CountedServer,
  requests: WrkRequest[],
  common: Record<string, string>,
  o: {
    warm: number;
    window: number;
    windows: number;
    connections?: number;
    status?: number;
    /** Also count an idle window of this many ms after the warm-up (see `Counted.idlePerSecond`). */
    idleMs?: number;
  },
): Promise<Counted> {
  const pid = String(server.child.pid);
  const control = (...a: string[]) =>
    execFileSync('callgrind_control', [...a, pid], { stdio: ['ignore', 'pipe', 'pipe'] });
  const seen = new Set(readdirSync(server.dir));
  const check = (r: { ok: number; other: number; seen: string[] }, n: number) => {
    if (r.ok !== n)
      throw new Error(
        `callgrind: ${r.other} of ${n} answers were not ${o.status ?? 302} (${r.seen.join('; ')})`,
      );
  };
  const send = (n: number) =>
    sendCounted(server.port, requests, common, n, o.connections, o.status);
  const warm = await send(o.warm);
  // the warm-up only warms: a few answers lost to a starved server's timeouts are told, not fatal
  if (warm.ok !== o.warm && warm.ok >= o.warm * 0.95)
    console.log(`  (warm-up: ${warm.other} answers were ${warm.seen.join('; ')})`);
  else check(warm, o.warm);
  let idlePerSecond: number | undefined;
  if (o.idleMs) {
    const started = process.hrtime.bigint();
    control('-i', 'on');
    await new Promise((resolve) => setTimeout(resolve, o.idleMs));
    control('-i', 'off');
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    control('-d');
    idlePerSecond = (await nextDump(server.dir, seen)).total / seconds;
  }
  const windows: number[] = [];
  const perRequest: number[] = [];
  const files: string[] = [];
  for (let w = 0, retries = 0; w < o.windows; w++) {
    const started = process.hrtime.bigint();
    control('-i', 'on');
    const r = await send(o.window);
    control('-i', 'off');
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    control('-d');
    const dump = await nextDump(server.dir, seen);
    // a window with an unexpected answer (a dependency's call timed out while a loaded machine
    // starved the server: its error path, not the request's) is counted again, twice at most
    if (r.ok !== o.window && retries < 2) {
      retries += 1;
      w -= 1;
      console.log(`  (window counted again: ${r.other} answers were ${r.seen.join('; ')})`);
      continue;
    }
    check(r, o.window);
    windows.push(dump.total / o.window);
    files.push(dump.file);
    if (idlePerSecond !== undefined)
      perRequest.push(Math.max(0, dump.total - idlePerSecond * seconds) / o.window);
  }
  const mean = windows.reduce((a, b) => a + b, 0) / windows.length;
  const counted: Counted = {
    windows,
    min: Math.min(...windows),
    median: median(windows),
    mean,
    files,
  };
  if (idlePerSecond === undefined) return counted;
  return {
    ...counted,
    idlePerSecond,
    perRequest,
    perRequestMin: Math.min(...perRequest),
    perRequestMedian: median(perRequest),
  };
}

export async function stopCounted(server: CountedServer): Promise<void> {
  await stop(server.child);
  rmSync(server.dir, { recursive: true, force: true });
}

/** `58.9k (median 63.0k, mean 64.1k)` */
export function formatCount(c: Counted): string {
  const k = (x: number) => (x / 1000).toFixed(1);
  return `${k(c.min)}k (median ${k(c.median)}k, mean ${k(c.mean)}k)`;
}

/** `idle 1.2M/s; per request without it 57.1k (median 58.0k)`, or '' without an idle window. */
export function formatIdle(c: Counted): string {
  if (c.idlePerSecond === undefined) return '';
  const k = (x: number) => (x / 1000).toFixed(1);
  return `idle ${(c.idlePerSecond / 1e6).toFixed(2)}M/s; per request without it ${k(c.perRequestMin ?? 0)}k (median ${k(c.perRequestMedian ?? 0)}k)`;
}

/** Every window's count: `74.2 63.0 59.7 71.8 58.9` (thousands) */
export function formatWindows(c: Counted): string {
  return c.windows.map((x) => (x / 1000).toFixed(1)).join(' ');
}
