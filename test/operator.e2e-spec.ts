import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { createServer, Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { createUser, useTestApp } from './support/app';
import { freePort, startBuilt } from './support/process';

const ROOT = join(__dirname, '..');

const { buildReason } = require('../scripts/start.js') as {
  buildReason: (root: string, env: Record<string, string>) => string | null;
};

/** Runs a command in the repository with this run's environment: its exit code and output. */
function run(
  cmd: string,
  args: string[],
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) =>
    execFile(cmd, args, { cwd: ROOT, env: process.env, timeout: 60_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    ),
  );
}
const adminKey = (...args: string[]) =>
  run(process.execPath, [join(ROOT, 'dist/apps/api/main.js'), 'admin-key', ...args]);

/** What an operator runs beside the service: the built api's commands and its start-up failures. */
describe('operator commands (built api)', () => {
  const t = useTestApp();

  it('npm run admin:key -- --email prints the stored key of that user (e-mail in any case)', async () => {
    const user = await createUser(t, { admin: true });
    const viaNpm = await run('npm', ['run', '--silent', 'admin:key', '--', '--email', user.email]);
    expect(viaNpm).toMatchObject({ code: 0, stdout: `${user.apiKey}\n` });
    const upper = await adminKey(`--email=${user.email.toUpperCase()}`);
    expect(upper).toMatchObject({ code: 0, stdout: `${user.apiKey}\n` });
  }, 60_000);

  it('--rotate prints a new key; the old one stops at once on a running replica, the new one works', async () => {
    const user = await createUser(t);
    const account = (key: string) =>
      t.http().get('/api/account').set('Authorization', `Bearer ${key}`);
    expect((await account(user.apiKey)).status).toBe(200); // the owner is now cached
    const rotated = await adminKey('--email', user.email, '--rotate');
    expect(rotated.code).toBe(0);
    const key = rotated.stdout.trim();
    expect(key).toMatch(/^\S{20,}$/);
    expect(key).not.toBe(user.apiKey);
    expect(rotated.stderr).toContain('old key');
    expect((await account(user.apiKey)).status).toBe(401);
    expect((await account(key)).status).toBe(200);
    // printed again, the key is the new one
    expect((await adminKey('--email', user.email)).stdout).toBe(`${key}\n`);
  }, 60_000);

  it('an unknown e-mail or a missing --email is one line on stderr and exit code 1', async () => {
    const unknown = await adminKey('--email', 'nobody-here@example.com');
    expect(unknown).toMatchObject({ code: 1, stdout: '' });
    expect(unknown.stderr).toBe('no user has the e-mail nobody-here@example.com\n');
    const missing = await adminKey();
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^usage: npm run admin:key -- --email <e-mail> \[--rotate\]\n$/);
  }, 60_000);

  it('a PORT in use stops the api with one line naming it and exit code 1, no stack trace', async () => {
    const port = await freePort();
    const holder: Server = createServer();
    await new Promise<void>((resolve) => holder.listen(port, resolve));
    try {
      const api = await startBuilt('api', { PORT: String(port) });
      let timer: NodeJS.Timeout | undefined;
      const code = await Promise.race([
        api.exited,
        new Promise((r) => (timer = setTimeout(() => r('still running'), 30_000))),
      ]);
      clearTimeout(timer);
      if (api.child.exitCode === null) api.child.kill('SIGKILL');
      expect(code).toBe(1);
      expect(api.output()).toContain(`PORT ${port} is in use`);
      expect(api.output()).not.toMatch(/^\s+at /m);
    } finally {
      holder.close();
    }
  }, 40_000);

  it('the built bundles resolve packages with Node: no webpack stub that always throws', () => {
    // a computed require.resolve (the city database's path) became webpack's empty context in
    // dist: the built api then ran without cities while every test of the sources passed
    for (const app of ['api', 'worker']) {
      const bundle = readFileSync(join(ROOT, `dist/apps/${app}/main.js`), 'utf8');
      expect([app, bundle.includes('webpackEmptyContext')]).toEqual([app, false]);
    }
  });

  it('npm start builds when a source is newer than dist/ (or REBUILD=1), not otherwise', () => {
    const root = mkdtempSync(join(tmpdir(), 'start-'));
    try {
      const file = (path: string, secondsAgo: number) => {
        mkdirSync(join(root, path, '..'), { recursive: true });
        writeFileSync(join(root, path), '');
        const at = new Date(Date.now() - secondsAgo * 1000);
        utimesSync(join(root, path), at, at);
      };
      file('package.json', 100);
      file('apps/api/src/main.ts', 100);
      file('libs/common/src/index.ts', 100);
      file('libs/common/node_modules/x/index.js', 0); // not a source
      expect(buildReason(root, {})).toBe('no build in dist/');
      file('dist/apps/api/main.js', 50);
      file('dist/apps/worker/main.js', 60);
      expect(buildReason(root, {})).toBe('no build in dist/'); // the dashboard is missing
      file('dist/apps/web/index.html', 55);
      expect(buildReason(root, {})).toBeNull();
      expect(buildReason(root, { REBUILD: '1' })).toBe('REBUILD=1');
      file('libs/common/src/index.ts', 10);
      expect(buildReason(root, {})).toBe('libs changed since the last build');
      file('dist/apps/api/main.js', 5); // a build that rewrote only the api's bundle
      expect(buildReason(root, {})).toBeNull();
      file('tsconfig.json', 0);
      expect(buildReason(root, {})).toBe('tsconfig.json changed since the last build');
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
