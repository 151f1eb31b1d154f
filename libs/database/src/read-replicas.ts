import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Pool } from 'pg';
import { DataSource, EntityManager, ObjectLiteral, QueryRunner, SelectQueryBuilder } from 'typeorm';

import { AppConfig } from '@app/config';
import { RedisService } from '@app/redis';

import { dataSourceOptions } from './data-source';
import { parseLsn, replicaLagSeconds, WalSample } from './replica-lag';

/** How often each replica's lag is measured. */
export const REPLICA_CHECK_MS = 1000;
/** A check that takes longer than this counts as the replica being down. */
const CHECK_TIMEOUT_MS = 2000;

/** What /health/ready says of one replica. */
export interface ReplicaStatus {
  /** the replica's host:port/database (no credentials) */
  name: string;
  /** `up`: serving reads; `lagging`: behind more than REPLICA_MAX_LAG_SECONDS; `down`: unreachable */
  status: 'up' | 'lagging' | 'down';
  /** seconds behind the primary at the last check (null: unknown) */
  lag: number | null;
}

interface Replica {
  index: number;
  name: string;
  url: string;
  ds: DataSource;
  /** the data source's connection, made on first use */
  ready: Promise<DataSource> | null;
  /** one connection of its own for the checks, so a busy pool never reads as a down replica */
  probe: Pool;
  status: ReplicaStatus['status'];
  lag: number | null;
}

/** Options of a replica read. */
export interface ReplicaReadOptions {
  /**
   * The user the read is for: a user who wrote lately (see `wrote`) reads from the primary, so
   * a caller never sees its own write disappear.
   */
  caller?: number;
  /**
   * What the read's transaction sets (`SET LOCAL …; SET LOCAL …`), sent with the replica
   * snapshot's `BEGIN` (one round trip). A read that falls back to the primary runs as a plain
   * call, without them: the caller sets them there itself.
   */
  local?: string;
}

/** SQLSTATE classes of errors that say the connection or the server failed, not the query. */
const CONNECTION_FAILURE = /^(08|57P|53|40001)/;

/**
 * Postgres read replicas (`DATABASE_REPLICA_URLS`). The application's DataSource, and with it
 * every repository, stays on the primary; `read()` is the one way to a replica, used by the
 * reads that tolerate a little lag (statistics, exports, lists). It runs the callback in a
 * read-only REPEATABLE READ transaction (one snapshot for all its queries) on a healthy replica,
 * else on the primary. Each replica's lag is measured every second against the primary's WAL
 * position; one that is down or behind more than REPLICA_MAX_LAG_SECONDS is skipped until it
 * catches up. Read-your-writes: a request that writes marks its user in Redis
 * (`<prefix>:rw:<user id>`, REPLICA_MAX_LAG_SECONDS plus the measurement's slack) and that user's
 * reads go to the primary meanwhile, on every api process. Without replicas nothing of this runs
 * and `read()` is a plain call on the primary.
 */
@Injectable()
export class ReadReplicas implements OnApplicationShutdown {
  private readonly logger = new Logger(ReadReplicas.name);
  private readonly replicas: Replica[];
  private readonly maxLag: number;
  /** the primary's WAL position over the last window */
  private samples: WalSample[] = [];
  private timer: NodeJS.Timeout | null = null;
  private checking: Promise<void> | null = null;
  /** the first check: reads wait for it (later ones run beside the reads) */
  private first: Promise<void> | null = null;
  private next = 0;
  /** when the last check ended (ms) */
  private checkedAt = 0;

  constructor(
    config: AppConfig,
    @InjectDataSource() private readonly primary: DataSource,
    private readonly redis: RedisService,
  ) {
    this.maxLag = config.REPLICA_MAX_LAG_SECONDS;
    const poolSize = replicaPoolSize(config.DB_POOL_SIZE);
    this.replicas = config.DATABASE_REPLICA_URLS.map((url, index) => {
      const options = dataSourceOptions(url, poolSize);
      const ds = new DataSource({
        ...options,
        migrations: [],
        // a standby refuses CREATE EXTENSION; the primary's migrations made them
        installExtensions: false,
        extra: { ...options.extra, application_name: 'linkmgmt-replica' },
      } as typeof options);
      const probe = new Pool({
        connectionString: url,
        max: 1,
        connectionTimeoutMillis: CHECK_TIMEOUT_MS,
        query_timeout: CHECK_TIMEOUT_MS,
        application_name: 'linkmgmt-replica-check',
      });
      probe.on('error', (err) => this.logger.warn(`replica ${index}: ${err.message}`));
      return {
        index,
        name: replicaName(url),
        url,
        ds,
        ready: null,
        probe,
        status: 'down',
        lag: null,
      };
    });
  }

  /** True when DATABASE_REPLICA_URLS names at least one replica. */
  get configured(): boolean {
    return this.replicas.length > 0;
  }

  /** The replicas' connection strings, in the order `choose()` numbers them. */
  get urls(): string[] {
    return this.replicas.map((r) => r.url);
  }

  /** How long a writer's reads stay on the primary: the allowed lag plus what its measurement may miss. */
  get stickyMs(): number {
    return this.maxLag * 1000 + 3 * REPLICA_CHECK_MS;
  }

  /**
   * Runs `fn` on a replica in a read-only REPEATABLE READ transaction, or on the primary (as a
   * plain call) when none is healthy, none is configured, or the caller wrote lately. A replica
   * whose connection fails mid-way is marked down and the read is run again on the primary.
   */
  async read<T>(
    fn: (manager: EntityManager) => Promise<T>,
    options: ReplicaReadOptions = {},
  ): Promise<T> {
    const index = await this.choose(options);
    if (index === null) return fn(this.primary.manager);
    const replica = this.replicas[index];
    try {
      const begin =
        'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY' +
        (options.local ? `; ${options.local}` : '');
      return await inTransaction(await this.connect(replica), begin, fn);
    } catch (err) {
      if (!isConnectionFailure(err)) throw err;
      this.markDown(index, err);
      return fn(this.primary.manager);
    }
  }

  /**
   * The replica a read should use (its index in `urls`), or null for the primary: replicas that
   * are up are taken in turn.
   */
  async choose(options: ReplicaReadOptions = {}): Promise<number | null> {
    if (!this.replicas.length) return null;
    this.start();
    await this.first;
    const up = this.replicas.filter((r) => r.status === 'up');
    if (!up.length) return null;
    if (options.caller !== undefined && (await this.wroteLately(options.caller))) return null;
    const replica = up[this.next++ % up.length];
    return replica.index;
  }

  /** A replica that failed a read: skipped until its next successful check. */
  markDown(index: number, err: unknown): void {
    const replica = this.replicas[index];
    if (!replica || replica.status === 'down') return;
    replica.status = 'down';
    replica.lag = null;
    this.logger.warn(`replica ${replica.name} is down: ${(err as Error).message}`);
  }

  /**
   * Marks `userId` as a writer: for `stickyMs` their replica reads go to the primary (on every
   * api process: the mark is in Redis). Nothing without replicas. A mark that cannot be written
   * is logged; the reads then find Redis failing too and use the primary.
   */
  async wrote(userId: number): Promise<void> {
    if (!this.replicas.length) return;
    try {
      await this.redis.client.set(this.writerKey(userId), '1', 'PX', this.stickyMs);
    } catch (err) {
      this.logger.warn(`read-your-writes mark of user ${userId}: ${(err as Error).message}`);
    }
  }

  /** Each replica's state, measured within the last second (for /health/ready). */
  async status(): Promise<ReplicaStatus[]> {
    if (!this.replicas.length) return [];
    this.start();
    await (Date.now() - this.checkedAt < REPLICA_CHECK_MS ? this.first : this.check());
    return this.replicas.map((r) => ({ name: r.name, status: r.status, lag: r.lag }));
  }

  private async wroteLately(userId: number): Promise<boolean> {
    if (!this.redis.ready) return true;
    try {
      return (await this.redis.reads.get(this.writerKey(userId))) !== null;
    } catch {
      return true;
    }
  }

  private writerKey(userId: number): string {
    return this.redis.key('rw', userId);
  }

  private connect(replica: Replica): Promise<DataSource> {
    replica.ready ??= replica.ds.initialize().catch((err: unknown) => {
      replica.ready = null;
      throw err;
    });
    return replica.ready;
  }

  /** Starts the periodic checks on first use (a process that never reads a replica runs none). */
  private start(): void {
    if (this.timer) return;
    this.first = this.check();
    this.timer = setInterval(() => void this.check(), REPLICA_CHECK_MS);
    this.timer.unref();
  }

  /** Samples the primary's WAL position, then measures every replica against the samples. */
  private check(): Promise<void> {
    if (this.checking) return this.checking;
    this.checking = (async () => {
      try {
        await this.samplePrimary();
        await Promise.all(this.replicas.map((r) => this.checkReplica(r)));
      } finally {
        this.checkedAt = Date.now();
        this.checking = null;
      }
    })();
    return this.checking;
  }

  private async samplePrimary(): Promise<void> {
    const now = Date.now();
    try {
      const [row] = await this.primary.query('SELECT pg_current_wal_lsn()::text AS lsn');
      this.samples.push({ at: now, lsn: parseLsn(row.lsn) });
    } catch (err) {
      this.logger.warn(`replica lag: the primary's WAL position: ${(err as Error).message}`);
    }
    // kept long enough to tell a lag of twice the allowed one
    const since = now - Math.max(2 * this.maxLag * 1000, 10_000);
    while (this.samples.length > 1 && this.samples[0].at < since) this.samples.shift();
  }

  private async checkReplica(replica: Replica): Promise<void> {
    const before = replica.status;
    try {
      const [row] = (
        await replica.probe.query<{ replayed: string | null }>(
          'SELECT pg_last_wal_replay_lsn()::text AS replayed',
        )
      ).rows;
      // not a standby (no WAL replay): nothing to lag behind
      const lag =
        row.replayed === null
          ? 0
          : replicaLagSeconds(this.samples, parseLsn(row.replayed), Date.now());
      replica.lag = lag === null ? null : Math.round(lag * 1000) / 1000;
      replica.status = lag !== null && lag > this.maxLag ? 'lagging' : 'up';
    } catch (err) {
      replica.status = 'down';
      replica.lag = null;
      if (before !== 'down')
        this.logger.warn(`replica ${replica.name} is down: ${(err as Error).message}`);
      return;
    }
    if (before !== replica.status && replica.status === 'lagging')
      this.logger.warn(
        `replica ${replica.name} lags ${replica.lag} s: skipped until it catches up`,
      );
    else if (before !== replica.status)
      this.logger.log(`replica ${replica.name} is up (lag ${replica.lag} s)`);
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.checking?.catch(() => undefined);
    await Promise.all(
      this.replicas.map(async (r) => {
        await r.probe.end().catch(() => undefined);
        await r.ready?.catch(() => undefined);
        if (r.ds.isInitialized) await r.ds.destroy().catch(() => undefined);
      }),
    );
  }
}

/**
 * How long the fold keeps an applied batch's Redis keys when replicas are configured (0 without):
 * twice the longest a replica in use can lag (REPLICA_MAX_LAG_SECONDS plus the slack of its
 * measurement), plus 10 s for the read itself.
 */
export function replicaGraceMs(
  config: Pick<AppConfig, 'DATABASE_REPLICA_URLS' | 'REPLICA_MAX_LAG_SECONDS'>,
): number {
  if (!config.DATABASE_REPLICA_URLS.length) return 0;
  return 2 * (config.REPLICA_MAX_LAG_SECONDS * 1000 + 3 * REPLICA_CHECK_MS) + 10_000;
}

/** Connections per replica and process: half of DB_POOL_SIZE (at least 2), as replicas serve a share of the reads. */
export function replicaPoolSize(dbPoolSize: number): number {
  return Math.max(2, Math.ceil(dbPoolSize / 2));
}

/** `host:port/database` of a connection string (never its credentials). */
function replicaName(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname}:${u.port || '5432'}${u.pathname}`;
  } catch {
    return 'replica';
  }
}

/**
 * True when `err` says the connection or the server failed (refused, cut, timed out, shutting
 * down, a recovery conflict), not the query or the caller's code.
 */
function isConnectionFailure(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown; driverError?: { code?: unknown } };
  const code = e?.code ?? e?.driverError?.code;
  if (typeof code === 'string') {
    // node's socket errors: ECONNREFUSED, ECONNRESET, ETIMEDOUT, EPIPE… (no SQLSTATE starts with E)
    if (/^E[A-Z]+$/.test(code)) return true;
    if (/^[0-9A-Z]{5}$/.test(code)) return CONNECTION_FAILURE.test(code);
  }
  return /connection terminated|timeout exceeded when trying to connect|connection (is )?(closed|ended)/i.test(
    String(e?.message ?? ''),
  );
}

/**
 * `runner` with its queries queued: on one connection, callers may issue queries side by side
 * (Promise.all), which pg would pipeline on the client only with a deprecation warning.
 */
/**
 * Runs `fn` in a transaction of its own on a connection of `ds`, opened by `begin`: `BEGIN` and
 * what the transaction needs set (`SET LOCAL …`), sent as one simple query, so one round trip.
 * Its queries are queued (`fn` may issue them side by side); COMMIT after, ROLLBACK on a throw.
 */
export async function inTransaction<T>(
  ds: DataSource,
  begin: string,
  fn: (manager: EntityManager) => Promise<T>,
): Promise<T> {
  const runner = queued(ds.createQueryRunner());
  try {
    // in the try: a `SET LOCAL` that fails after `BEGIN` leaves a transaction to roll back
    await runner.query(begin);
    const result = await fn(runner.manager);
    await runner.query('COMMIT');
    return result;
  } catch (err) {
    await runner.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    await runner.release();
  }
}

export function queued(runner: QueryRunner): QueryRunner {
  const query = runner.query.bind(runner);
  let queue: Promise<unknown> = Promise.resolve();
  runner.query = ((...args: Parameters<typeof query>) => {
    const next = queue.then(() => query(...args));
    queue = next.catch(() => undefined);
    return next;
  }) as typeof runner.query;
  return runner;
}

/**
 * `qb` (built on a repository of the primary) made to run on `manager`'s connection: a
 * replica's in ReadReplicas.read, unchanged when the read fell back to the primary.
 */
export function onManager<T extends ObjectLiteral>(
  qb: SelectQueryBuilder<T>,
  manager: EntityManager,
): SelectQueryBuilder<T> {
  return manager.queryRunner ? qb.setQueryRunner(manager.queryRunner) : qb;
}
