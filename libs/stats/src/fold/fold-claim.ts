import { randomUUID } from 'node:crypto';

import { RedisService } from '@app/redis';

import { CLAIM_BATCH_SCRIPT, HLL_TTL_SECONDS, StatsKeys } from '../keys';
import { collectBatch, FoldBatch } from './fold-batch';

/** Dirty links claimed per batch. */
export const BATCH_SIZE = 500;

type ClaimingRedis = {
  claimVisits(
    dirty: string,
    inflight: string,
    base: string,
    batch: string,
    max: number,
  ): Promise<string[]>;
};

/**
 * The fold's Redis side: claims dirty links' pending hashes into a batch (atomic: a Lua script
 * renames them), reads a claimed batch with its days' HyperLogLogs, and deletes it once applied.
 * A claimed batch stays in `st:inflight` until then, so a crash in between loses nothing.
 */
export class FoldClaims {
  private readonly keys: StatsKeys;
  private defined = false;

  /**
   * @param graceMs with read replicas: how long an applied batch's keys outlive its clean-up
   *   (see `cleanup`); 0 without replicas.
   */
  constructor(
    private readonly redis: RedisService,
    private readonly graceMs = 0,
  ) {
    this.keys = new StatsKeys(redis);
  }

  /** Batches claimed and not yet cleaned up (a run that crashed left them). */
  leftovers(): Promise<string[]> {
    return this.redis.client.smembers(this.keys.inflight);
  }

  /** Moves up to BATCH_SIZE dirty links into a new in-flight batch. */
  async claim(): Promise<{ batch: string; size: number }> {
    const batch = `${Date.now()}-${randomUUID()}`;
    const claimed = await this.client().claimVisits(
      this.keys.dirty,
      this.keys.inflight,
      this.keys.base,
      batch,
      BATCH_SIZE,
    );
    return { batch, size: claimed.length };
  }

  /**
   * A claimed batch's counts, and the unique visitors of each (link, day) touched: the day's
   * HyperLogLog count and the sketch itself (kept in Postgres, so ranges can count distinct
   * visitors over many days). The recorder leaves the HLL's expiry to this step (each is read
   * here while its day is written to).
   */
  async read(batch: string, withVisits: boolean): Promise<FoldBatch> {
    const ids = await this.redis.client.smembers(this.keys.batch(batch));
    const pipeline = this.redis.client.pipeline();
    for (const id of ids) pipeline.hgetall(this.keys.batchLink(batch, id));
    const hashes = ((await pipeline.exec()) ?? []).map(([err, value]) => {
      if (err) throw err;
      return value as Record<string, string>;
    });
    const collected = collectBatch(batch, ids, hashes, withVisits);

    const rows = collected.rows;
    if (rows.length) {
      const pf = this.redis.client.pipeline();
      for (const r of rows) {
        const hll = this.keys.visitors(r.linkId, r.day);
        pf.pfcount(hll).getBuffer(hll).expire(hll, HLL_TTL_SECONDS);
      }
      ((await pf.exec()) ?? []).forEach(([err, value], i) => {
        if (err) return;
        const row = rows[Math.floor(i / 3)];
        if (i % 3 === 0) row.uniques = Number(value);
        else if (i % 3 === 1) row.sketch = (value as Buffer | null) ?? null;
      });
    }
    return collected;
  }

  /**
   * Deletes an applied batch's keys. With read replicas, keeps them for `graceMs` instead (they
   * expire then) and lists the batch in `st:kept`: a statistics read on a replica that has not
   * replayed the batch yet counts it from Redis (readPending), one that has replayed it from
   * Postgres; `graceMs` exceeds the most a replica in use can lag. Atomic either way: a batch is
   * always in `st:inflight` or `st:kept` until it is gone from the replicas' view too.
   */
  async cleanup(batch: string, ids: string[]): Promise<void> {
    const keys = [...ids.map((id) => this.keys.batchLink(batch, id)), this.keys.batch(batch)];
    const tx = this.redis.client.multi();
    if (this.graceMs) {
      const now = Date.now();
      for (const key of keys) tx.pexpire(key, this.graceMs);
      tx.zadd(this.keys.kept, now, batch).zremrangebyscore(
        this.keys.kept,
        '-inf',
        now - this.graceMs,
      );
    } else tx.unlink(...keys);
    await tx.srem(this.keys.inflight, batch).exec();
  }

  private client(): ClaimingRedis {
    if (!this.defined) {
      this.redis.client.defineCommand('claimVisits', { numberOfKeys: 2, lua: CLAIM_BATCH_SCRIPT });
      this.defined = true;
    }
    return this.redis.client as unknown as ClaimingRedis;
  }
}
