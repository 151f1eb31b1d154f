/**
 * What the benchmarks share besides the load harness (harness.ts): a free port, the built apps
 * started as processes of their own, their memory, the api's admin calls, the removal of a run's
 * database, Redis keys and files, and the script's exit.
 */
import { ChildProcess } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';

import { dropDatabase } from '../../libs/database/src/data-source';
import { freePort, readyLine, spawnBuilt } from '../../test/support/process';
import { deleteKeys, scanKeys, testRedis } from '../../test/support/redis';
import { TestRedisCluster } from '../../test/support/services';

/** This run's name (the pid and the time): what it creates is named after it. */
export const RUN = `${process.pid}_${Date.now().toString(36)}`;

/**
 * The environment of a run's own api (and worker): a database, a Redis prefix (`<tag><RUN>`) and
 * a storage folder of the run's own, a rate limit out of the way; `extra` adds to it or overrides
 * it. It is applied to this process too, before the apps' modules are imported (their config is
 * read when they load).
 */
export function runEnvironment(tag: string, storage: string, extra: Record<string, string> = {}) {
  const env = {
    ...process.env,
    NODE_ENV: 'test',
    DATABASE_URL: `postgres://postgres@127.0.0.1:5432/linkmgmt_bench_${RUN}`,
    REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    REDIS_PREFIX: `${tag}${RUN}`.slice(0, 32),
    STORAGE_DIR: storage,
    PUBLIC_URL: 'http://short.bench',
    APP_SECRET: 'bench-secret-bench-secret-bench',
    LOG_LEVEL: 'warn',
    RATE_LIMIT: '1000000',
    ...extra,
  };
  Object.assign(process.env, env);
  return env;
}

export { freePort };

/**
 * Starts a built app (dist/apps/<name>/main.js, unpinned) with `nodeArgs` before it, and
 * resolves once its stdout says `ready`; rejects when it exits first or takes over 120 s.
 */
export async function startBuilt(
  name: 'api' | 'worker',
  env: NodeJS.ProcessEnv,
  ready: string,
  nodeArgs: string[] = [],
): Promise<ChildProcess> {
  const child = spawnBuilt(name, env, { nodeArgs, stderr: 'inherit' });
  await readyLine(child, ready, name, 120_000).catch((err) => {
    child.kill('SIGKILL');
    throw err;
  });
  return child;
}

/** Resident memory of a process (MB, from /proc/<pid>/status); 0 once it cannot be read. */
export async function rssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024;
}

/** `fetch` of the api as the admin (key `key`): the JSON body; anything but a 200 throws. */
export function adminClient(base: string, key: string) {
  return async (method: string, path: string, body?: object) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      body: body ? JSON.stringify(body) : undefined,
    });
    const json = (await res.json()) as Record<string, unknown> & {
      data?: Record<string, unknown>;
    };
    if (res.status !== 200)
      throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
}

/**
 * `count` users `<name>u0`, `<name>u1`, … (e-mail `<user>@example.com`) on plan `planId` for
 * life, created through the api by the admin; their API keys, in order.
 */
export async function createUsers(
  api: ReturnType<typeof adminClient>,
  name: string,
  count: number,
  planId: number,
  password: string,
): Promise<string[]> {
  const keys: string[] = [];
  for (let i = 0; i < count; i++) {
    const created = await api('POST', '/api/user/add', {
      username: `${name}u${i}`,
      email: `${name}u${i}@example.com`,
      password,
    });
    const id = (created.data as { id: number }).id;
    await api('PUT', `/api/plan/${planId}/user/${id}`, { type: 'lifetime' });
    keys.push(((await api('GET', `/api/user/${id}`)).data as { apikey: string }).apikey);
  }
  return keys;
}

/** The Redis a bench runs against (BENCH_REDIS). */
export interface BenchRedis {
  mode: 'single' | 'cluster';
  /** Its settings, for the run's processes (also applied to this one). */
  env: Record<string, string>;
  /** Stops what the bench started (a cluster and its keys). */
  stop(): Promise<void>;
}

/**
 * BENCH_REDIS=cluster: a 3-primary Redis Cluster of the run's own (as the tests start one,
 * test/support/services.ts), its nodes in REDIS_CLUSTER_NODES; otherwise the server at
 * REDIS_URL. The settings are applied to this process too (testRedis() reads them).
 */
export async function benchRedis(): Promise<BenchRedis> {
  if (process.env.BENCH_REDIS !== 'cluster') {
    delete process.env.REDIS_CLUSTER_NODES;
    return { mode: 'single', env: {}, stop: async () => undefined };
  }
  const cluster = await TestRedisCluster.start(3);
  const env = { REDIS_CLUSTER_NODES: cluster.nodes };
  Object.assign(process.env, env);
  return { mode: 'cluster', env, stop: () => cluster.stop() };
}

/**
 * Drops a run's database, its Redis keys (`<REDIS_PREFIX>:*`) and, when named, its storage folder
 * (the settings as the run's processes were given them).
 */
export async function removeRun(run: {
  DATABASE_URL: string;
  REDIS_URL: string;
  REDIS_PREFIX: string;
  STORAGE_DIR?: string;
}): Promise<void> {
  await dropDatabase(run.DATABASE_URL);
  // the run's Redis in its mode (a cluster of the run's own is stopped with its keys)
  const redis = testRedis({ ...process.env, REDIS_URL: run.REDIS_URL });
  await deleteKeys(redis, await scanKeys(redis, `${run.REDIS_PREFIX}:*`));
  await redis.quit();
  if (run.STORAGE_DIR) await rm(run.STORAGE_DIR, { recursive: true, force: true });
}

/** Runs a benchmark's main: exits with process.exitCode (0 unset), 1 after printing a failure. */
export function runBench(main: () => Promise<void>): void {
  main().then(
    () => process.exit(process.exitCode ?? 0),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
