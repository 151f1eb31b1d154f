/**
 * Built apps as real processes, for the e2e suites and the benchmarks alike (bench/lib imports
 * this file): a free port, `dist/apps/<name>/main.js` spawned with an environment, its ready line
 * or /health awaited, and its stop by pid (SIGTERM, SIGKILL after a grace period). Nothing here
 * reads the test environment, so a benchmark may use it as it is.
 */
import { ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { AddressInfo, createServer } from 'node:net';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

const ROOT = join(__dirname, '..', '..');

/** A free TCP port on loopback. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/** The built entry point of an app; made by `npm run build` (`npm test` and the benchmarks run it first). */
export function builtMain(name: 'api' | 'worker'): string {
  const main = join(ROOT, 'dist', 'apps', name, 'main.js');
  if (!existsSync(main)) throw new Error(`${main} is missing: run npm run build (npm test does)`);
  return main;
}

/**
 * Spawns a built app from the repository root with exactly `env`, stdout piped; stderr piped
 * too, or the caller's (`inherit`). `nodeArgs` go before the entry point (`--cpu-prof`, ...).
 */
export function spawnBuilt(
  name: 'api' | 'worker',
  env: NodeJS.ProcessEnv,
  options: { nodeArgs?: string[]; stderr?: 'pipe' | 'inherit' } = {},
): ChildProcess {
  return spawn(process.execPath, [...(options.nodeArgs ?? []), builtMain(name)], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', options.stderr ?? 'pipe'],
  });
}

/**
 * Resolves with the match once `ready` (a RegExp, or a string to find) matches what `child`
 * wrote to stdout, then lets its stdout flow; rejects with that output (and its stderr, when
 * piped) if it exits first, or after `ms` when given.
 */
export function readyLine(
  child: ChildProcess,
  ready: RegExp | string,
  name: string,
  ms?: number,
): Promise<RegExpMatchArray> {
  const pattern =
    typeof ready === 'string' ? new RegExp(ready.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')) : ready;
  return new Promise((resolve, reject) => {
    let text = '';
    const timer =
      ms === undefined
        ? undefined
        : setTimeout(
            () => reject(new Error(`${name} not ready within ${ms} ms: ${text.slice(-2000)}`)),
            ms,
          );
    const onData = (c: Buffer) => {
      text += c.toString();
      const match = pattern.exec(text);
      if (match) {
        clearTimeout(timer);
        child.stdout?.off('data', onData);
        child.stdout?.resume();
        resolve(match);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (c: Buffer) => (text += c.toString()));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited with ${code}: ${text.slice(-2000)}`));
    });
  });
}

/** Polls the api's `<url>/health` until it answers 200; fails at once if `child` exits first. */
export async function waitHealthy(url: string, ms = 20_000, child?: ChildProcess): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (child && child.exitCode !== null) throw new Error(`${url}: exited with ${child.exitCode}`);
    const ok = await fetch(`${url}/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`api at ${url} not healthy within ${ms} ms`);
}

/** Stops a child by its pid: SIGTERM, SIGKILL after `graceMs`; resolves once it has exited. */
export function stop(child: ChildProcess, graceMs = 10_000): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const force = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(force);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

export interface AppProcess {
  child: ChildProcess;
  port: number;
  url: string;
  output: () => string;
  exited: Promise<number | null>;
}

/**
 * Runs a built app as a real process with this test run's database and Redis prefix (the
 * suite's environment) on a free port; `env` adds to it or overrides it. All its output is kept.
 */
export async function startBuilt(
  name: 'api' | 'worker',
  env: Record<string, string> = {},
): Promise<AppProcess> {
  const port = await freePort();
  let out = '';
  const child = spawnBuilt(name, { ...process.env, PORT: String(port), LOG_LEVEL: 'info', ...env });
  child.stdout?.on('data', (d) => (out += d));
  child.stderr?.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, port, url: `http://127.0.0.1:${port}`, output: () => out, exited };
}

/**
 * A full garbage collection of this process (V8's `gc`, exposed at run time), so that a memory
 * figure counts what is live, not garbage a collection has not reached yet.
 */
export function collectGarbage(): void {
  exposedGc ??= (() => {
    setFlagsFromString('--expose-gc');
    return runInNewContext('gc') as () => void;
  })();
  exposedGc();
}
let exposedGc: (() => void) | undefined;
