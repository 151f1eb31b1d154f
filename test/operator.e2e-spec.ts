import { execFile } from 'node:child_process';
import { createServer, Server } from 'node:net';
import { join } from 'node:path';

import { createUser, useTestApp } from './support/app';
import { startBuilt } from './support/process';
import { freePort } from './support/services';

const ROOT = join(__dirname, '..');

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
      const code = await Promise.race([
        api.exited,
        new Promise((r) => setTimeout(() => r('still running'), 30_000)),
      ]);
      if (api.child.exitCode === null) api.child.kill('SIGKILL');
      expect(code).toBe(1);
      expect(api.output()).toContain(`PORT ${port} is in use`);
      expect(api.output()).not.toMatch(/^\s+at /m);
    } finally {
      holder.close();
    }
  }, 40_000);
});
