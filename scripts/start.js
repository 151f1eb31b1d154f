#!/usr/bin/env node
// `npm start`: build (when needed), migrate, then run the api and the worker side by side.
// Without Docker this is the one command that runs the whole service on this machine.
const { spawn, spawnSync } = require('node:child_process');
const { existsSync } = require('node:fs');

const env = {
  ADMIN_EMAIL: 'admin@example.com',
  ADMIN_PASSWORD: 'admin12345',
  DOMAIN_VERIFY: 'off',
  ...process.env,
};

function run(cmd, args) {
  const r = spawnSync(cmd, args, { stdio: 'inherit', env });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

if (!existsSync('dist/apps/api/main.js') || !existsSync('dist/apps/worker/main.js') || process.env.REBUILD === '1') {
  run('npm', ['run', 'build']);
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
