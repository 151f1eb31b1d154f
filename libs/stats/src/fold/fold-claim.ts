import { randomBytes } from 'node:crypto';

import { RedisService } from '@app/redis';

import {
  CLAIM_BATCH_SCRIPT,
  HLL_TTL_SECONDS,
  PartitionKeys,
  READ_BATCH_SCRIPT,
  READ_VISITORS_SCRIPT,
} from '../keys';
import { collectBatch, FoldBatch } from './fold-batch';

/** A batch as claimed: its id, the link ids claimed, and their hashes as HGETALL answers them. */
export interface ClaimedBatch {
  batch: string;
  ids: string[];
  hashes: string[][];
}

/** Dirty links claimed per batch. */
export const BATCH_SIZE = 500;

type ClaimingRedis = {
  claimVisits(...args: Array<string | number>): Promise<[string[], string[][]]>;
  readBatch(...args: Array<string | number>): Promise<string[][]>;
  readVisitorsBuffer(...args: Array<string | number>): Promise<Array<number | Buffer | null>>;
};

/**
 * The fold's Redis side, one partition at a time (every key of a call is in the partition's hash
 * slot): claims dirty links' pending hashes into a batch (atomic: a Lua script renames them),
 * reads a claimed batch with its days' HyperLogLogs, and deletes it once applied. A claimed batch
 * stays in the partition's `inflight` set until then, so a crash in between loses nothing.
 */
export class FoldClaims {
  private defined = false;

  /**
   * @param graceMs with read replicas: how long an applied batch's keys outlive its clean-up
   *   (see `cleanup`); 0 without replicas.
   */
  constructor(
    private readonly redis: RedisService,
    private readonly graceMs = 0,
  ) {}

  /** The partition's batches claimed and not yet cleaned up (a run that crashed left them). */
  leftovers(keys: PartitionKeys): Promise<string[]> {
    return this.redis.client.smembers(keys.inflight);
  }

  /**
   * Moves up to BATCH_SIZE of the partition's dirty links into a new in-flight batch: picks
   * candidates, then one script claims those still pending (it must name every key it touches)
   * and answers their hashes.
   */
  async claim(keys: PartitionKeys): Promise<ClaimedBatch> {
    // short (every key of the batch names it): the partition, the time and 72 random bits
    const batch = `p${keys.partition}-${Date.now().toString(36)}-${randomBytes(9).toString('base64url')}`;
    const candidates = await this.redis.client.srandmember(keys.dirty, BATCH_SIZE);
    if (!candidates.length) return { batch, ids: [], hashes: [] };
    const linkKeys = candidates.flatMap((id) => [keys.pending(id), keys.batchLink(batch, id)]);
    const [ids, hashes] = await this.client().claimVisits(
      3 + linkKeys.length,
      keys.dirty,
      keys.inflight,
      keys.batch(batch),
      ...linkKeys,
      batch,
      ...candidates,
    );
    return { batch, ids, hashes };
  }

  /**
   * A claimed batch's counts, and the unique visitors of each (link, day) touched: the day's
   * HyperLogLog count and the sketch itself (kept in Postgres, so ranges can count distinct
   * visitors over many days). The recorder leaves the HLL's expiry to this step (each is read
   * here while its day is written to). `batch`: the claim's answer, or the id of a batch claimed
   * earlier (read from Redis).
   */
  async read(
    keys: PartitionKeys,
    claimed: ClaimedBatch | string,
    withVisits: boolean,
  ): Promise<FoldBatch> {
    const { batch, ids, hashes } =
      typeof claimed === 'string' ? await this.readClaimed(keys, claimed) : claimed;
    const collected = collectBatch(batch, ids, hashes, withVisits);

    const rows = collected.rows;
    if (rows.length) {
      if (keys.formerVisitors) await this.mergeFormerVisitors(keys, rows);
      const visitors = await this.client().readVisitorsBuffer(
        rows.length,
        ...rows.map((r) => keys.visitors(r.linkId, r.day)),
        HLL_TTL_SECONDS,
      );
      rows.forEach((row, i) => {
        const count = visitors[2 * i];
        if (count === null) return;
        row.uniques = Number(count);
        row.sketch = (visitors[2 * i + 1] as Buffer | null) ?? null;
      });
    }
    return collected;
  }

  /** The ids and hashes of a batch claimed earlier. */
  private async readClaimed(keys: PartitionKeys, batch: string): Promise<ClaimedBatch> {
    const ids = await this.redis.client.smembers(keys.batch(batch));
    const hashes = ids.length
      ? await this.client().readBatch(ids.length, ...ids.map((id) => keys.batchLink(batch, id)))
      : [];
    return { batch, ids, hashes };
  }

  /**
   * Deletes an applied batch's keys. With read replicas, keeps them for `graceMs` instead (they
   * expire then) and lists the batch in the partition's `kept` set: a statistics read on a
   * replica that has not replayed the batch yet counts it from Redis (readPending), one that has
   * replayed it from Postgres; `graceMs` exceeds the most a replica in use can lag. One MULTI in
   * the partition's slot: a batch is always in `inflight` or `kept` until the grace is over.
   */
  async cleanup(keys: PartitionKeys, batch: string, ids: string[]): Promise<void> {
    const batchKeys = [...ids.map((id) => keys.batchLink(batch, id)), keys.batch(batch)];
    const tx = this.redis.client.multi();
    if (this.graceMs) {
      const now = Date.now();
      for (const key of batchKeys) tx.pexpire(key, this.graceMs);
      tx.zadd(keys.kept, now, batch).zremrangebyscore(keys.kept, '-inf', now - this.graceMs);
    } else tx.unlink(...batchKeys);
    await tx.srem(keys.inflight, batch).exec();
  }

  /**
   * The layout before partitions kept a day's visitors under another key: merged into the
   * partition's HyperLogLog (and deleted), so the day's count covers the visitors recorded on
   * either side of an upgrade. Only in single and sentinel mode (one server, no slots).
   */
  private async mergeFormerVisitors(
    keys: PartitionKeys,
    rows: Array<{ linkId: number; day: string }>,
  ): Promise<void> {
    const pipeline = this.redis.client.pipeline();
    for (const r of rows) {
      const former = `${keys.formerVisitors}:${r.linkId}:${r.day}`;
      pipeline.pfmerge(keys.visitors(r.linkId, r.day), former).unlink(former);
    }
    for (const [err] of (await pipeline.exec()) ?? []) if (err) throw err;
  }

  private client(): ClaimingRedis {
    if (!this.defined) {
      this.redis.client.defineCommand('claimVisits', { lua: CLAIM_BATCH_SCRIPT });
      this.redis.client.defineCommand('readBatch', { lua: READ_BATCH_SCRIPT });
      this.redis.client.defineCommand('readVisitors', { lua: READ_VISITORS_SCRIPT });
      this.defined = true;
    }
    return this.redis.client as unknown as ClaimingRedis;
  }
}
