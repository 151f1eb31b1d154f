import { execFile, spawn } from 'node:child_process';
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

import { Client } from 'pg';

import { freePort } from './process';

export { freePort };

const run = promisify(execFile);

async function waitFor(check: () => Promise<boolean>, ms: number, what: string): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await check().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what} did not come up within ${ms} ms`);
}

/**
 * A Redis server of the test's own on a free port (the shared one keeps running), which the test
 * may stop and start again on the same port.
 */
export class TestRedis {
  private constructor(
    readonly port: number,
    /** `requirepass` of the server, if any */
    readonly password?: string,
  ) {}

  static async start(password?: string): Promise<TestRedis> {
    const r = new TestRedis(await freePort(), password);
    await r.start();
    return r;
  }

  private get auth(): string[] {
    return this.password ? ['--no-auth-warning', '-a', this.password] : [];
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    spawn(
      'redis-server',
      [
        '--port',
        String(this.port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'no',
        '--daemonize',
        'yes',
        ...(this.password ? ['--requirepass', this.password] : []),
      ],
      {
        stdio: 'ignore',
      },
    );
    await waitFor(
      async () =>
        (await run('redis-cli', [...this.auth, '-p', String(this.port), 'ping'])).stdout.trim() ===
        'PONG',
      10_000,
      'redis',
    );
  }

  async stop(): Promise<void> {
    await run('redis-cli', [...this.auth, '-p', String(this.port), 'shutdown', 'nosave']).catch(
      () => undefined,
    );
    await waitFor(
      async () => {
        try {
          await run('redis-cli', ['-p', String(this.port), 'ping']);
          return false;
        } catch {
          return true;
        }
      },
      10_000,
      'redis shutdown',
    );
  }
}

function pgBin(name: string): string {
  const base = '/usr/lib/postgresql';
  const version = readdirSync(base).sort().pop();
  return join(base, version as string, 'bin', name);
}

/** Runs a Postgres binary as the postgres user when we are root (Postgres refuses to run as root). */
function asPostgres(bin: string, args: string[]): [string, string[]] {
  return process.getuid && process.getuid() === 0
    ? ['runuser', ['-u', 'postgres', '--', bin, ...args]]
    : [bin, args];
}

/**
 * A Postgres cluster of the test's own (initdb in a temp folder, trust auth, a free port), which
 * the test may stop and start again. Slower than Redis (~2-3 s to init), so one per suite.
 */
export class TestPostgres {
  private constructor(
    readonly port: number,
    readonly dir: string,
  ) {}

  static available(): boolean {
    return existsSync('/usr/lib/postgresql') && readdirSync('/usr/lib/postgresql').length > 0;
  }

  static async start(): Promise<TestPostgres> {
    const dir = mkdtempSync(join(tmpdir(), 'lm-pg-'));
    await run('chown', ['postgres', dir]).catch(() => undefined);
    const pg = new TestPostgres(await freePort(), dir);
    const [cmd, args] = asPostgres(pgBin('initdb'), [
      '-D',
      join(dir, 'data'),
      '-A',
      'trust',
      '-U',
      'postgres',
      '--no-sync',
    ]);
    await run(cmd, args);
    await pg.start();
    return pg;
  }

  url(database: string): string {
    return `postgres://postgres@127.0.0.1:${this.port}/${database}`;
  }

  async start(): Promise<void> {
    const [cmd, args] = asPostgres(pgBin('pg_ctl'), [
      '-D',
      join(this.dir, 'data'),
      '-l',
      join(this.dir, 'log'),
      '-w',
      '-t',
      '20',
      '-o',
      `-p ${this.port} -k ${this.dir} -c listen_addresses=127.0.0.1 -c fsync=off`,
      'start',
    ]);
    await run(cmd, args);
  }

  async stop(mode: 'fast' | 'immediate' = 'fast'): Promise<void> {
    const [cmd, args] = asPostgres(pgBin('pg_ctl'), [
      '-D',
      join(this.dir, 'data'),
      '-m',
      mode,
      '-w',
      'stop',
    ]);
    await run(cmd, args).catch(() => undefined);
  }

  async destroy(): Promise<void> {
    await this.stop('immediate');
    rmSync(this.dir, { recursive: true, force: true });
  }

  /**
   * An asynchronous streaming standby of `primary` (`pg_basebackup -R -X stream`: it follows the
   * primary's WAL over a replication connection, read-only queries allowed), replaying each
   * commit `applyDelayMs` after the primary made it (`recovery_min_apply_delay`).
   */
  static async standbyOf(primary: TestPostgres, applyDelayMs: number): Promise<TestPostgres> {
    const dir = mkdtempSync(join(tmpdir(), 'lm-pg-standby-'));
    await run('chown', ['postgres', dir]).catch(() => undefined);
    const standby = new TestPostgres(await freePort(), dir);
    const [cmd, args] = asPostgres(pgBin('pg_basebackup'), [
      '-h',
      '127.0.0.1',
      '-p',
      String(primary.port),
      '-U',
      'postgres',
      '-D',
      join(dir, 'data'),
      '-R',
      '-X',
      'stream',
      '-c',
      'fast',
      '--no-sync',
    ]);
    await run(cmd, args);
    await standby.setApplyDelay(applyDelayMs, false);
    await standby.start();
    return standby;
  }

  /** A standby's `recovery_min_apply_delay` (applied at once to a running standby: reload). */
  async setApplyDelay(ms: number, reload = true): Promise<void> {
    appendFileSync(
      join(this.dir, 'data', 'postgresql.auto.conf'),
      `recovery_min_apply_delay = '${ms}ms'\n`,
    );
    if (!reload) return;
    const [cmd, args] = asPostgres(pgBin('pg_ctl'), ['-D', join(this.dir, 'data'), 'reload']);
    await run(cmd, args);
  }
}

/** Runs one statement on a connection of its own. */
async function queryOnce(url: string, sql: string): Promise<Array<Record<string, unknown>>> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows;
  } finally {
    await client.end();
  }
}

/**
 * A Postgres primary with one asynchronous streaming standby (see TestPostgres.standbyOf): the
 * read-replica setup of docs/scaling.md, about 3 s to start.
 */
export class TestPgReplica {
  private constructor(
    readonly primary: TestPostgres,
    readonly standby: TestPostgres,
  ) {}

  static async start(applyDelayMs = 500): Promise<TestPgReplica> {
    const primary = await TestPostgres.start();
    try {
      return new TestPgReplica(primary, await TestPostgres.standbyOf(primary, applyDelayMs));
    } catch (err) {
      await primary.destroy();
      throw err;
    }
  }

  /** Rows of `sql` run on the standby (database `database`). */
  standbyQuery(sql: string, database = 'postgres'): Promise<Array<Record<string, unknown>>> {
    return queryOnce(this.standby.url(database), sql);
  }

  /** Waits until the standby has replayed everything the primary has written so far. */
  async caughtUp(ms = 20_000): Promise<void> {
    const [{ lsn }] = await queryOnce(
      this.primary.url('postgres'),
      'SELECT pg_current_wal_lsn()::text AS lsn',
    );
    await waitFor(
      async () =>
        (await this.standbyQuery(`SELECT pg_last_wal_replay_lsn() >= '${lsn}'::pg_lsn AS done`))[0]
          .done === true,
      ms,
      'standby replay',
    );
  }

  async destroy(): Promise<void> {
    await this.standby.destroy();
    await this.primary.destroy();
  }
}

/** The replica URLs the suites run with (TEST_PG_REPLICA=1), none otherwise. */
function replicaUrls(): string[] {
  return (process.env.DATABASE_REPLICA_URLS ?? '')
    .split(',')
    .map((u) => u.trim())
    .filter(Boolean);
}

/**
 * Waits until every replica of the run (TEST_PG_REPLICA=1) has replayed what the primary has
 * written so far; at once without replicas. For suites that write rows straight into the
 * database (no API request, so no read-your-writes mark) and then read them through a replica
 * path (lists, statistics, exports).
 */
export async function replicasCaughtUp(ms = 20_000): Promise<void> {
  const urls = replicaUrls();
  if (!urls.length) return;
  const [{ lsn }] = await queryOnce(
    process.env.DATABASE_URL as string,
    'SELECT pg_current_wal_lsn()::text AS lsn',
  );
  for (const url of urls)
    await waitFor(
      async () =>
        (await queryOnce(url, `SELECT pg_last_wal_replay_lsn() >= '${lsn}'::pg_lsn AS done`))[0]
          .done === true,
      ms,
      'replica replay',
    );
}

/**
 * Rows of `sql` on the primary and every replica of the run together: e.g. `pg_stat_activity`
 * of exports, which run on a replica when there is one.
 */
export async function queryPrimaryAndReplicas(
  sql: string,
): Promise<Array<Record<string, unknown>>> {
  const urls = [process.env.DATABASE_URL as string, ...replicaUrls()];
  return (await Promise.all(urls.map((url) => queryOnce(url, sql)))).flat();
}

/** SIGKILL to the process whose pid a daemonized server wrote to `file` (none, or gone: nothing). */
function killByPidFile(file: string): void {
  const pid = existsSync(file) ? Number(readFileSync(file, 'utf8').trim()) : 0;
  if (pid > 0) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

/**
 * A Redis Cluster of the test's own: `primaries` servers with `--cluster-enabled yes` on free
 * ports in a temp folder, joined by `redis-cli --cluster create` (no replicas), about 2 s.
 * `nodes` is the REDIS_CLUSTER_NODES value; stop() shuts every server down by pid and removes
 * the folder.
 */
export class TestRedisCluster {
  private constructor(
    readonly ports: number[],
    readonly dir: string,
    readonly password?: string,
  ) {}

  /** redis-cli's arguments for the password, if any. */
  private get auth(): string[] {
    return this.password ? ['--no-auth-warning', '-a', this.password] : [];
  }

  /** `password`: every node requires it (`requirepass`, and `masterauth` between nodes). */
  static async start(primaries = 3, password?: string): Promise<TestRedisCluster> {
    const dir = mkdtempSync(join(tmpdir(), 'lm-redis-cluster-'));
    const ports: number[] = [];
    while (ports.length < primaries) {
      const port = await freePort();
      // the cluster bus listens on port + 10000: both must be free
      if (port <= 55535 && !ports.includes(port)) ports.push(port);
    }
    const cluster = new TestRedisCluster(ports, dir, password);
    await Promise.all(ports.map((port) => cluster.startNode(port)));
    await run('redis-cli', [
      ...cluster.auth,
      '--cluster',
      'create',
      ...ports.map((p) => `127.0.0.1:${p}`),
      '--cluster-replicas',
      '0',
      '--cluster-yes',
    ]);
    await waitFor(
      async () => {
        for (const port of ports) {
          const info = (
            await run('redis-cli', [...cluster.auth, '-p', String(port), 'cluster', 'info'])
          ).stdout;
          if (!info.includes('cluster_state:ok')) return false;
        }
        return true;
      },
      20_000,
      'redis cluster',
    );
    return cluster;
  }

  /** The REDIS_CLUSTER_NODES value (every primary as a seed). */
  get nodes(): string {
    return this.ports.map((p) => `127.0.0.1:${p}`).join(',');
  }

  private async startNode(port: number): Promise<void> {
    const nodeDir = join(this.dir, String(port));
    mkdirSync(nodeDir, { recursive: true });
    spawn(
      'redis-server',
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--dir',
        nodeDir,
        '--cluster-enabled',
        'yes',
        '--cluster-config-file',
        'nodes.conf',
        '--cluster-node-timeout',
        '2000',
        '--save',
        '',
        '--appendonly',
        'no',
        '--pidfile',
        join(nodeDir, 'redis.pid'),
        '--daemonize',
        'yes',
        ...(this.password ? ['--requirepass', this.password, '--masterauth', this.password] : []),
      ],
      { stdio: 'ignore' },
    );
    await waitFor(
      async () =>
        (await run('redis-cli', [...this.auth, '-p', String(port), 'ping'])).stdout.trim() ===
        'PONG',
      10_000,
      `redis cluster node ${port}`,
    );
  }

  /** Kills one node (SIGKILL): its slots are down until it is started again. */
  kill(port: number): void {
    killByPidFile(join(this.dir, String(port), 'redis.pid'));
  }

  /** Starts a killed node again (it rejoins with its nodes.conf) and waits for the cluster. */
  async restart(port: number): Promise<void> {
    await this.startNode(port);
    await waitFor(
      async () =>
        (
          await run('redis-cli', [...this.auth, '-p', String(port), 'cluster', 'info'])
        ).stdout.includes('cluster_state:ok'),
      20_000,
      'redis cluster after a restart',
    );
  }

  async stop(): Promise<void> {
    for (const port of this.ports) killByPidFile(join(this.dir, String(port), 'redis.pid'));
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/**
 * A primary, its replica and one sentinel watching them (quorum 1), each on a free port: the
 * Sentinel mode (REDIS_SENTINELS) with a failover the test can force. `password`: the servers
 * and the sentinel require it.
 */
export class TestRedisSentinel {
  readonly name = 'lmtest';

  private constructor(
    readonly dir: string,
    readonly ports: { primary: number; replica: number; sentinel: number },
    readonly password?: string,
  ) {}

  static async start(password?: string): Promise<TestRedisSentinel> {
    const dir = mkdtempSync(join(tmpdir(), 'lm-redis-sentinel-'));
    const taken: number[] = [];
    const port = async () => {
      let p = await freePort();
      while (taken.includes(p)) p = await freePort();
      taken.push(p);
      return p;
    };
    const ports = { primary: await port(), replica: await port(), sentinel: await port() };
    const s = new TestRedisSentinel(dir, ports, password);
    await s.startServer(ports.primary, []);
    await s.startServer(ports.replica, ['--replicaof', '127.0.0.1', String(ports.primary)]);
    const conf = join(dir, 'sentinel.conf');
    writeFileSync(
      conf,
      [
        `port ${ports.sentinel}`,
        'bind 127.0.0.1',
        `dir ${dir}`,
        `pidfile ${join(dir, 'sentinel.pid')}`,
        'daemonize yes',
        `sentinel monitor ${s.name} 127.0.0.1 ${ports.primary} 1`,
        `sentinel down-after-milliseconds ${s.name} 1000`,
        `sentinel failover-timeout ${s.name} 5000`,
        ...(password
          ? [`sentinel auth-pass ${s.name} ${password}`, `requirepass ${password}`]
          : []),
        '',
      ].join('\n'),
    );
    await waitFor(
      async () =>
        (await s.cli(ports.replica, 'info', 'replication')).includes('master_link_status:up'),
      20_000,
      'redis replica sync',
    );
    spawn('redis-server', [conf, '--sentinel'], { stdio: 'ignore' });
    // the sentinel has found the replica: a failover can be asked for
    await waitFor(
      async () => (await s.cli(ports.sentinel, 'sentinel', 'replicas', s.name)).includes('slave'),
      20_000,
      'redis sentinel',
    );
    return s;
  }

  /** The REDIS_SENTINELS value. */
  get sentinels(): string {
    return `127.0.0.1:${this.ports.sentinel}`;
  }

  /** The port of the server the sentinel names as primary now. */
  async primaryPort(): Promise<number> {
    const answer = await this.cli(
      this.ports.sentinel,
      'sentinel',
      'get-master-addr-by-name',
      this.name,
    );
    return Number(answer.trim().split('\n')[1]);
  }

  /**
   * Forces a failover and waits until the replica is the primary and the old one follows it.
   * First waits for the replica to acknowledge every write the primary had when it was called:
   * SENTINEL FAILOVER does not, and a replica behind would lose the last writes (replication is
   * asynchronous). The offset is read once: the primary's own offset keeps moving (the
   * sentinels' hello messages, the app's heartbeats) while the replica acknowledges once a
   * second, so waiting for the two to meet raced every write made meanwhile.
   */
  async failover(): Promise<void> {
    const before = await this.primaryPort();
    const offset = (info: string, pattern: RegExp) => Number(pattern.exec(info)?.[1] ?? NaN);
    const written = offset(
      await this.cli(before, 'info', 'replication'),
      /master_repl_offset:(\d+)/,
    );
    await waitFor(
      async () => {
        const info = await this.cli(before, 'info', 'replication');
        return offset(info, /slave0:[^\r\n]*offset=(\d+)/) >= written;
      },
      10_000,
      'redis replica caught up',
    );
    await this.cli(this.ports.sentinel, 'sentinel', 'failover', this.name);
    await waitFor(
      async () => {
        const now = await this.primaryPort();
        if (now === before) return false;
        const role = await this.cli(before, 'role');
        return role.startsWith('slave') && role.includes('connected');
      },
      30_000,
      'sentinel failover',
    );
  }

  /** redis-cli against one of the servers (or the sentinel); its output. */
  async cli(port: number, ...args: string[]): Promise<string> {
    const auth = this.password ? ['--no-auth-warning', '-a', this.password] : [];
    return (await run('redis-cli', [...auth, '-p', String(port), ...args])).stdout;
  }

  private async startServer(port: number, extra: string[]): Promise<void> {
    const auth = this.password
      ? ['--requirepass', this.password, '--masterauth', this.password]
      : [];
    spawn(
      'redis-server',
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--dir',
        this.dir,
        '--dbfilename',
        `dump-${port}.rdb`,
        '--save',
        '',
        '--appendonly',
        'no',
        // the replica's first sync at once (not after the default 5 s)
        '--repl-diskless-sync-delay',
        '0',
        '--pidfile',
        join(this.dir, `redis-${port}.pid`),
        '--daemonize',
        'yes',
        ...auth,
        ...extra,
      ],
      { stdio: 'ignore' },
    );
    await waitFor(
      async () => (await this.cli(port, 'ping')).trim() === 'PONG',
      10_000,
      `redis ${port}`,
    );
  }

  async stop(): Promise<void> {
    for (const name of [
      'sentinel.pid',
      `redis-${this.ports.primary}.pid`,
      `redis-${this.ports.replica}.pid`,
    ])
      killByPidFile(join(this.dir, name));
    rmSync(this.dir, { recursive: true, force: true });
  }
}
