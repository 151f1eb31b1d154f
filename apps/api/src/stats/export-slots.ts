import { randomUUID } from 'node:crypto';

import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { Pool, PoolClient } from 'pg';

import { TooManyRequestsError } from '@app/common';
import { AppConfig } from '@app/config';
import { ReadReplicas } from '@app/database';
import { RedisService } from '@app/redis';

/** Seconds a refused export is told to wait (Retry-After). */
export const EXPORT_RETRY_AFTER_SECONDS = 10;

/**
 * Takes a slot in a user's set of running exports (every replica together): drops the entries
 * whose time is up, then adds this one unless the user already has ARGV[3]. KEYS[1] the user's
 * sorted set; ARGV: now (ms), this entry's end (ms), the limit, its id, the key's lifetime (ms).
 */
const TAKE = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return 1`;

type SlotRedis = {
  exportSlot(
    key: string,
    now: number,
    end: number,
    limit: number,
    id: string,
    ttl: number,
  ): Promise<number>;
};

/** A running export's connection; `release` once, `broken` when the COPY did not finish. */
export interface ExportLease {
  client: PoolClient;
  release(broken: boolean): void;
}

/**
 * The Postgres connections of CSV exports, apart from the pool every other request uses: a client
 * that stops reading an export holds one of these, never one of DB_POOL_SIZE, so the rest of the
 * api keeps its pool whatever exports do. At most EXPORT_CONNECTIONS exports run in a process and
 * EXPORTS_PER_USER per user (counted in Redis, so over every replica; each entry lapses on its
 * own after the longest an export can run, so a crashed replica's entries do not stay); past
 * either, 429 with Retry-After, at once (no export waits in a queue holding its request). The
 * connections run with `statement_timeout` EXPORT_STATEMENT_SECONDS. With read replicas, an export
 * reads from one (a pool like this one per replica; ReadReplicas chooses, and a user who wrote
 * lately exports from the primary).
 */
@Injectable()
export class ExportSlots implements OnApplicationShutdown {
  private readonly logger = new Logger(ExportSlots.name);
  private readonly pool: Pool;
  /** one pool per read replica, in ReadReplicas' order */
  private readonly replicaPools: Pool[];
  private readonly perUser = new Map<number, number>();
  private running = 0;
  private defined = false;
  /** the longest an export holds its slot: its statement, then a stalled client's grace */
  private readonly lifetimeMs: number;

  constructor(
    private readonly config: AppConfig,
    private readonly redis: RedisService,
    private readonly replicas: ReadReplicas,
  ) {
    const statementMs = config.EXPORT_STATEMENT_SECONDS * 1000;
    this.lifetimeMs = statementMs + config.EXPORT_STALL_SECONDS * 1000 + 60_000;
    const pool = (url: string) => {
      const p = new Pool({
        connectionString: url,
        max: config.EXPORT_CONNECTIONS,
        connectionTimeoutMillis: 5000,
        idleTimeoutMillis: 30_000,
        statement_timeout: statementMs,
        idle_in_transaction_session_timeout: statementMs,
        application_name: 'linkmgmt-export',
      });
      // an idle connection that the server closes must not crash the process
      p.on('error', (err) => this.logger.warn(`export connection: ${err.message}`));
      return p;
    };
    this.pool = pool(config.DATABASE_URL);
    this.replicaPools = replicas.urls.map(pool);
  }

  /** A connection for one export of `userId`, or a 429 with Retry-After. */
  async acquire(userId: number): Promise<ExportLease> {
    const busy = (message: string) => new TooManyRequestsError(message, EXPORT_RETRY_AFTER_SECONDS);
    const limit = this.config.EXPORTS_PER_USER;
    const yours = `At most ${limit} exports of yours may run at once; retry when one has finished`;
    const mine = this.perUser.get(userId) ?? 0;
    if (mine >= limit) throw busy(yours);
    if (this.running >= this.config.EXPORT_CONNECTIONS)
      throw busy('Too many exports are running; retry shortly');
    // counted before the first await, so concurrent requests see each other
    this.running += 1;
    this.perUser.set(userId, mine + 1);
    const id = randomUUID();
    let shared = false;
    const undo = () => {
      this.running -= 1;
      const n = (this.perUser.get(userId) ?? 1) - 1;
      if (n > 0) this.perUser.set(userId, n);
      else this.perUser.delete(userId);
      if (shared) this.redis.client.zrem(this.key(userId), id).catch(() => undefined);
    };
    const slot = await this.takeShared(userId, id, limit);
    if (slot === 'full') {
      undo();
      throw busy(yours);
    }
    shared = slot === 'taken';
    let client: PoolClient;
    try {
      // never waits for a free connection: `running` stays within each pool's max
      client = await this.connect(userId);
    } catch (err) {
      undo();
      throw err;
    }
    let released = false;
    return {
      client,
      release: (broken) => {
        if (released) return;
        released = true;
        // a COPY cut short leaves the connection mid-protocol: discarded, which ends the backend
        client.release(broken);
        undo();
      },
    };
  }

  /** A connection to a healthy replica (see ReadReplicas.choose), else to the primary. */
  private async connect(userId: number): Promise<PoolClient> {
    const index = await this.replicas.choose({ caller: userId });
    if (index !== null) {
      try {
        return await this.replicaPools[index].connect();
      } catch (err) {
        this.replicas.markDown(index, err);
      }
    }
    return this.pool.connect();
  }

  /**
   * Takes the user's slot in Redis: `full` when they already have `limit` exports running on
   * every replica together; `off` (not counted there) while Redis is unreachable, when this
   * process's own count still holds.
   */
  private async takeShared(
    userId: number,
    id: string,
    limit: number,
  ): Promise<'taken' | 'full' | 'off'> {
    if (!this.redis.ready) return 'off';
    if (!this.defined) {
      this.redis.client.defineCommand('exportSlot', { numberOfKeys: 1, lua: TAKE });
      this.defined = true;
    }
    try {
      const now = Date.now();
      const taken = await (this.redis.client as unknown as SlotRedis).exportSlot(
        this.key(userId),
        now,
        now + this.lifetimeMs,
        limit,
        id,
        this.lifetimeMs,
      );
      return taken ? 'taken' : 'full';
    } catch (err) {
      this.logger.warn(`export slots unavailable: ${(err as Error).message}`);
      return 'off';
    }
  }

  private key(userId: number): string {
    return this.redis.key('export', userId);
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all([this.pool, ...this.replicaPools].map((p) => p.end()));
  }
}
