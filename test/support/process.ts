import { ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

import { freePort } from './services';

const ROOT = join(__dirname, '..', '..');

export interface AppProcess {
  child: ChildProcess;
  port: number;
  url: string;
  output: () => string;
  exited: Promise<number | null>;
}

/**
 * Runs a built app (`dist/apps/<name>/main.js`, made by `npm run build`, which `npm test` runs
 * first) as a real process with this test run's database and Redis prefix.
 */
export async function startBuilt(
  name: 'api' | 'worker',
  env: Record<string, string> = {},
): Promise<AppProcess> {
  const main = join(ROOT, 'dist', 'apps', name, 'main.js');
  if (!existsSync(main)) throw new Error(`${main} is missing: run npm run build (npm test does)`);
  const port = await freePort();
  let out = '';
  const child = spawn(process.execPath, [main], {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port), LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (d) => (out += d));
  child.stderr?.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, port, url: `http://127.0.0.1:${port}`, output: () => out, exited };
}

/** Polls the api's /health until it answers 200. */
export async function waitHealthy(url: string, ms = 20_000): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    const ok = await fetch(`${url}/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`api at ${url} not healthy within ${ms} ms`);
}
