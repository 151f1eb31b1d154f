/**
 * `npm run bench:guard`: what an API call costs through the guard, in instructions per request
 * (callgrind: repeatable on a busy machine, see bench/lib/instructions.ts), for this build and,
 * side by side in the same run, for the build of an earlier commit (`GUARD_BEFORE_REF=<ref>`:
 * checked out in a temporary worktree, built with this checkout's node_modules, removed after).
 *
 * Each build serves on a database and Redis prefix of its own (migrated by its own `migrate`),
 * one user on a paid plan with one link. Counted, with the user's personal key:
 * `GET /api/account` (the guard and a plan check, no other I/O) and `GET /api/url/:id` (the
 * guard, then one link read). With this build only (an earlier one may not have them): the same
 * read with a named key (`links:read`), and by a member of the user's workspace
 * (`X-Workspace`, role viewer). The bound: the guard's cost within 5 % of before.
 */
import { ChildProcess, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { Client } from 'pg';

import { sha256 } from '../libs/common/src/util/crypto';
import { waitHealthy, WrkRequest } from './lib/harness';
import {
  countInstructions,
  Counted,
  formatCount,
  formatWindows,
  haveValgrind,
  startCounted,
  stopCounted,
} from './lib/instructions';
import { adminClient, createUsers, freePort, removeRun, RUN, runBench } from './lib/run';

const ROOT = join(__dirname, '..');
/** An API call costs ~25× a redirect: fewer requests per window than bench:redirect's (GUARD_WINDOW). */
const WINDOW = Number(process.env.GUARD_WINDOW ?? 1500);
/**
 * Four connections: under valgrind a request takes ~30 ms, and 50 connections queued on the
 * Postgres pool long enough for some reads to time out (a 503 is not the request counted).
 */
const COUNT = { warm: 3 * WINDOW, window: WINDOW, windows: 5, status: 200, connections: 4 };
const ADMIN_KEY = `guardadminkey${RUN}`.replace(/[^A-Za-z0-9]/g, '').padEnd(40, 'x');
const NAMED_KEY = `lk_guardbench${RUN}`.replace(/[^A-Za-z0-9_]/g, '').padEnd(43, 'y');

interface Build {
  label: string;
  root: string;
  /** Whether its schema has teams (named keys, members). */
  teams: boolean;
}

function env(label: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    NODE_ENV: 'production',
    DATABASE_URL: `postgres://postgres@127.0.0.1:5432/linkmgmt_guard_${RUN}_${label}`,
    REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    REDIS_PREFIX: `guard${label}${RUN}`.slice(0, 32),
    PUBLIC_URL: 'http://short.bench',
    APP_SECRET: 'bench-secret-bench-secret-bench-secret',
    LOG_LEVEL: 'silent',
    RATE_LIMIT: '100000000',
    DOMAIN_VERIFY: 'off',
    ADMIN_EMAIL: `guard-admin-${label}@example.com`,
    ADMIN_API_KEY: ADMIN_KEY,
    STATS_FLUSH_MS: '10000',
    ...extra,
  };
}

/** A build of `ref` in a temporary worktree (this checkout's node_modules). */
function buildBefore(ref: string): { build: Build; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'guard-before-'));
  execFileSync('git', ['worktree', 'add', '--detach', dir, ref], { cwd: ROOT, stdio: 'ignore' });
  const remove = () => {
    execFileSync('git', ['worktree', 'remove', '--force', dir], { cwd: ROOT, stdio: 'ignore' });
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
    console.log(`building ${ref} in ${dir} ...`);
    execFileSync('npm', ['run', 'build'], { cwd: dir, stdio: 'ignore' });
    const teams = existsSync(join(dir, 'libs/database/src/migrations/1732300030000-teams.ts'));
    return { build: { label: 'before', root: dir, teams }, remove };
  } catch (err) {
    remove();
    throw err;
  }
}

async function measure(build: Build): Promise<Map<string, Counted>> {
  const e = env(build.label);
  const main = join(build.root, 'dist', 'apps', 'api', 'main.js');
  execFileSync(process.execPath, [main, 'migrate'], { env: e, stdio: 'ignore' });
  const port = await freePort();
  const server = await startCounted([main], { ...e, PORT: String(port) }, /api listening/, port);
  const results = new Map<string, Counted>();
  const db = new Client({ connectionString: e.DATABASE_URL });
  try {
    const base = `http://127.0.0.1:${port}`;
    await waitHealthy(base, 180_000, server.child as ChildProcess);
    await db.connect();
    const api = adminClient(base, ADMIN_KEY);
    const [pro] = (await db.query(`SELECT id FROM plans WHERE NOT free ORDER BY id LIMIT 1`)).rows;
    const [owner, member] = await createUsers(api, `g${build.label}`, 2, pro.id, 'guard-pass-1');
    const ownerApi = adminClient(base, owner);
    const link = (await ownerApi('POST', '/api/url/add', { url: 'https://example.com/a' })) as {
      id: number;
    };
    const cases: Array<[string, WrkRequest, Record<string, string>]> = [
      ['GET /api/account', { path: '/api/account' }, { Authorization: `Bearer ${owner}` }],
      ['GET /api/url/:id', { path: `/api/url/${link.id}` }, { Authorization: `Bearer ${owner}` }],
    ];
    if (build.teams) {
      const ids = (
        await db.query(`SELECT id, email FROM users WHERE email LIKE $1 ORDER BY id`, [
          `g${build.label}u%`,
        ])
      ).rows as Array<{ id: number }>;
      await db.query(
        `INSERT INTO api_keys (workspace_id, user_id, name, prefix, key_hash, scopes)
         VALUES ($1, $1, 'bench', $2, $3, '{links:read}')`,
        [ids[0].id, NAMED_KEY.slice(0, 10), sha256(NAMED_KEY)],
      );
      await db.query(
        `INSERT INTO workspace_members (workspace_id, user_id, role) VALUES ($1, $2, 'viewer')`,
        [ids[0].id, ids[1].id],
      );
      cases.push(
        [
          'GET /api/url/:id, named key',
          { path: `/api/url/${link.id}` },
          { Authorization: `Bearer ${NAMED_KEY}` },
        ],
        [
          'GET /api/url/:id, member',
          { path: `/api/url/${link.id}` },
          { Authorization: `Bearer ${member}`, 'X-Workspace': String(ids[0].id) },
        ],
      );
    }
    for (const [name, request, headers] of cases) {
      const c = await countInstructions(
        server,
        [request],
        { Host: `127.0.0.1:${port}`, ...headers },
        COUNT,
      );
      results.set(name, c);
      console.log(
        `${build.label.padEnd(7)} ${name.padEnd(30)} ${formatCount(c).padStart(22)} instructions/request   windows: ${formatWindows(c)}`,
      );
    }
  } finally {
    await db.end().catch(() => undefined);
    await stopCounted(server);
    await removeRun({
      DATABASE_URL: e.DATABASE_URL!,
      REDIS_URL: e.REDIS_URL!,
      REDIS_PREFIX: e.REDIS_PREFIX!,
    });
  }
  return results;
}

async function main(): Promise<void> {
  if (!haveValgrind()) throw new Error('bench:guard needs valgrind (apt-get install valgrind)');
  const ref = process.env.GUARD_BEFORE_REF;
  const before = ref ? buildBefore(ref) : null;
  try {
    console.log(
      `instructions per request (callgrind, user space), ${COUNT.windows} windows of ${COUNT.window} after ${COUNT.warm} uncounted; the quietest window is the figure`,
    );
    const after = await measure({ label: 'after', root: ROOT, teams: true });
    if (!before) return;
    const was = await measure(before.build);
    console.log(`\nthis build against ${ref}:`);
    for (const [name, c] of after) {
      const old = was.get(name);
      if (old) console.log(`${name.padEnd(30)} ${((c.min / old.min - 1) * 100).toFixed(1)} %`);
    }
  } finally {
    before?.remove();
  }
}

runBench(main);
