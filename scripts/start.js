#!/usr/bin/env node
// `npm start`: build (when needed), migrate, then run the api and the worker side by side.
// Without Docker this is the one command that runs the whole service on this machine.
const { spawn, spawnSync } = require('node:child_process');
const { existsSync, readdirSync, statSync, utimesSync } = require('node:fs');
const { join } = require('node:path');

/** What `npm run build` writes: the two bundles and the dashboard's page (apps/web, by vite). */
const MAINS = ['dist/apps/api/main.js', 'dist/apps/worker/main.js', 'dist/apps/web/index.html'];
/** What the build reads: a change to any of them makes dist/ stale. */
const SOURCES = ['apps', 'libs', 'tsconfig.json', 'nest-cli.json', 'package.json', 'package-lock.json'];

/** Newest modification time (ms) of `path`: a file's own, a folder's newest file (node_modules skipped). */
function newest(path) {
  let stat;
  try {
    stat = statSync(path);
  } catch {
    return 0;
  }
  if (!stat.isDirectory()) return stat.mtimeMs;
  let max = 0;
  for (const entry of readdirSync(path)) {
    if (entry === 'node_modules' || entry.startsWith('.')) continue;
    max = Math.max(max, newest(join(path, entry)));
  }
  return max;
}

/**
 * Why `npm start` must build first, or null when everything is built and the last build (`npm run
 * build` writes both bundles and the dashboard; webpack rewrites only a changed one) is newer than
 * every source. REBUILD=1 forces the build.
 */
function buildReason(root = process.cwd(), env = process.env) {
  if (env.REBUILD === '1') return 'REBUILD=1';
  const mains = MAINS.map((m) => join(root, m));
  if (!mains.every((m) => existsSync(m))) return 'no build in dist/';
  const built = Math.max(...mains.map((m) => statSync(m).mtimeMs));
  const changed = SOURCES.find((s) => newest(join(root, s)) > built);
  return changed ? `${changed} changed since the last build` : null;
}

function main() {
  const env = {
    ADMIN_EMAIL: 'admin@example.com',
    ADMIN_PASSWORD: 'admin12345',
    DOMAIN_VERIFY: 'off',
    ...process.env,
  };
  const run = (cmd, args) => {
    const r = spawnSync(cmd, args, { stdio: 'inherit', env });
    if (r.status !== 0) process.exit(r.status ?? 1);
  };

  const reason = buildReason();
  if (reason) {
    console.log(`npm start: building (${reason})`);
    run('npm', ['run', 'build']);
    // webpack leaves an unchanged bundle untouched: mark it built now, or a change that did not
    // alter it (a comment) would rebuild at every start
    const now = new Date();
    for (const m of MAINS) utimesSync(m, now, now);
  }
  run('node', ['dist/apps/api/main.js', 'migrate']);

  const children = ['api', 'worker'].map((app) =>
    spawn('node', [`dist/apps/${app}/main.js`], { stdio: 'inherit', env }),
  );
  const stop = (signal) => children.forEach((c) => c.exitCode === null && c.kill(signal));
  process.on('SIGINT', () => stop('SIGTERM'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  let left = children.length;
  children.forEach((c) =>
    c.on('exit', (code) => {
      if (code && code !== 0) stop('SIGTERM');
      if (--left === 0) process.exit(code ?? 0);
    }),
  );
}

module.exports = { buildReason };
if (require.main === module) main();
