import { Inject, Injectable, Optional } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

import { AppConfig } from '@app/config';
import { replicaGraceMs } from '@app/database';
import { isCluster, RedisService } from '@app/redis';

import { PartitionKeys, StatsKeys } from '../keys';
import { FoldApply } from './fold-apply';
import { BATCH_SIZE, ClaimedBatch, FoldClaims } from './fold-claim';
import { FOLD_LISTENER, FoldListener } from './fold-listener';
import { StatsRetention } from './stats-retention';

/** Batches claimed per run (the first pass over the partitions always completes). */
const MAX_BATCHES_PER_RUN = 50;

export interface FoldResult {
  batches: number;
  links: number;
  clicks: number;
}

/**
 * The fold: moves the Redis visit counters into Postgres, exactly once (the worker runs it every
 * STATS_FOLD_SECONDS), one partition at a time (each partition's keys are one hash slot):
 * 1. claim (FoldClaims, Redis): the partition's dirty links' pending hashes are renamed into a
 *    batch whose id names the partition;
 * 2. apply (FoldApply, Postgres): one transaction inserts the batch id into stat_batches and adds
 *    the deltas; a batch already in stat_batches (a crash after commit) is not applied again;
 * 3. clean up (FoldClaims): the batch's keys are deleted (with read replicas: kept a grace period,
 *    so a statistics read on a replica that has not replayed the batch yet still counts it).
 * A crash after 1 leaves the batch in the partition's `inflight` set: the next run applies it.
 * Unique visitors are HyperLogLog counts per link and day, stored with GREATEST, so refolding is
 * harmless. On one server (single or sentinel mode) each run first drains the layout before
 * partitions (keys without a hash tag), which a deployment upgrading may still hold or, while
 * earlier api versions run beside this one, still receive. Retention (StatsRetention) runs
 * beside it, under the same lock.
 */
@Injectable()
export class StatsFold {
  private readonly keys: StatsKeys;
  private readonly claims: FoldClaims;
  private readonly applier: FoldApply;
  private readonly retention: StatsRetention;

  constructor(
    private readonly redis: RedisService,
    @InjectDataSource() db: DataSource,
    config: AppConfig,
    @Optional() @Inject(FOLD_LISTENER) private readonly listener?: FoldListener,
  ) {
    this.keys = new StatsKeys(redis, config.STATS_PARTITIONS);
    this.claims = new FoldClaims(redis, replicaGraceMs(config));
    this.applier = new FoldApply(db, listener, config.STATS_LABELS_PER_DAY);
    this.retention = new StatsRetention(db);
  }

  /**
   * Applies every partition's leftover batches and claims one batch of each, then keeps claiming
   * from the partitions that filled a batch until nothing is dirty or the run's budget is spent.
   */
  async fold(): Promise<FoldResult> {
    const total: FoldResult = { batches: 0, links: 0, clicks: 0 };
    let busy = this.partitions();
    for (const keys of busy) {
      for (const batch of await this.claims.leftovers(keys))
        this.add(total, await this.applyBatch(batch));
    }
    for (let budget = MAX_BATCHES_PER_RUN; busy.length && budget > 0;) {
      const full: PartitionKeys[] = [];
      for (const keys of busy) {
        const size = await this.foldOne(keys, total);
        if (size === BATCH_SIZE) full.push(keys);
        budget--;
      }
      busy = full;
    }
    return total;
  }

  /** Step 1 alone (claim one batch of the first partition with dirty links): for crash tests. */
  async claimOnly(): Promise<string | null> {
    for (const keys of this.partitions()) {
      const { batch, ids } = await this.claims.claim(keys);
      if (ids.length) return batch;
    }
    return null;
  }

  /**
   * Applies one claimed batch (idempotent), then deletes its keys. `claimed`: the claim's answer,
   * or the id of a batch claimed earlier.
   */
  async applyBatch(
    claimed: ClaimedBatch | string,
    options: { skipCleanup?: boolean } = {},
  ): Promise<FoldResult> {
    const batch = typeof claimed === 'string' ? claimed : claimed.batch;
    const keys = this.keys.ofBatch(batch);
    const read = await this.claims.read(keys, claimed, !!this.listener);
    const applied = await this.applier.apply(read);
    if (!options.skipCleanup) await this.claims.cleanup(keys, batch, read.linkIds);
    return applied
      ? { batches: 1, links: read.linkIds.length, clicks: read.clicks }
      : { batches: 0, links: 0, clicks: 0 };
  }

  /** Plan retention (see StatsRetention). */
  applyRetention(): Promise<void> {
    return this.retention.apply();
  }

  /** The key sets a run folds: the layout before partitions first (one server only), then each partition. */
  private partitions(): PartitionKeys[] {
    return isCluster(this.redis.client)
      ? [...this.keys.partitions]
      : [this.keys.legacy, ...this.keys.partitions];
  }

  /** Claims and applies one batch of a partition; answers how many links it claimed. */
  private async foldOne(keys: PartitionKeys, total: FoldResult): Promise<number> {
    const claimed = await this.claims.claim(keys);
    if (claimed.ids.length) this.add(total, await this.applyBatch(claimed));
    return claimed.ids.length;
  }

  private add(total: FoldResult, r: FoldResult): void {
    total.batches += r.batches;
    total.links += r.links;
    total.clicks += r.clicks;
  }
}
