import { Inject, Injectable, Optional } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

import { AppConfig } from '@app/config';
import { replicaGraceMs } from '@app/database';
import { RedisService } from '@app/redis';

import { FoldApply } from './fold-apply';
import { BATCH_SIZE, FoldClaims } from './fold-claim';
import { FOLD_LISTENER, FoldListener } from './fold-listener';
import { StatsRetention } from './stats-retention';

const MAX_BATCHES_PER_RUN = 50;

export interface FoldResult {
  batches: number;
  links: number;
  clicks: number;
}

/**
 * The fold: moves the Redis visit counters into Postgres, exactly once (the worker runs it every
 * STATS_FOLD_SECONDS):
 * 1. claim (FoldClaims, Redis): the dirty links' pending hashes are renamed into a batch;
 * 2. apply (FoldApply, Postgres): one transaction inserts the batch id into stat_batches and adds
 *    the deltas; a batch already in stat_batches (a crash after commit) is not applied again;
 * 3. clean up (FoldClaims): the batch's keys are deleted (with read replicas: kept a grace period,
 *    so a statistics read on a replica that has not replayed the batch yet still counts it).
 * A crash after 1 leaves the batch in `st:inflight`: the next run applies it. Unique visitors
 * are HyperLogLog counts per link and day, stored with GREATEST, so refolding is harmless.
 * Retention (StatsRetention) runs beside it, under the same lock.
 */
@Injectable()
export class StatsFold {
  private readonly claims: FoldClaims;
  private readonly applier: FoldApply;
  private readonly retention: StatsRetention;

  constructor(
    redis: RedisService,
    @InjectDataSource() db: DataSource,
    @Optional() @Inject(FOLD_LISTENER) private readonly listener?: FoldListener,
    @Optional() config?: AppConfig,
  ) {
    this.claims = new FoldClaims(redis, config ? replicaGraceMs(config) : 0);
    this.applier = new FoldApply(db, listener);
    this.retention = new StatsRetention(db);
  }

  /** Applies leftover batches, then claims and applies until nothing is dirty (bounded). */
  async fold(): Promise<FoldResult> {
    const total: FoldResult = { batches: 0, links: 0, clicks: 0 };
    const leftovers = await this.claims.leftovers();
    for (const batch of leftovers) this.add(total, await this.applyBatch(batch));
    for (let i = 0; i < MAX_BATCHES_PER_RUN; i++) {
      const { batch, size } = await this.claims.claim();
      if (!size) break;
      this.add(total, await this.applyBatch(batch));
      if (size < BATCH_SIZE) break;
    }
    return total;
  }

  /** Step 1 alone (claim one batch without applying it): for crash tests. */
  async claimOnly(): Promise<string | null> {
    const { batch, size } = await this.claims.claim();
    return size ? batch : null;
  }

  /** Applies one claimed batch (idempotent), then deletes its keys. */
  async applyBatch(batch: string, options: { skipCleanup?: boolean } = {}): Promise<FoldResult> {
    const read = await this.claims.read(batch, !!this.listener);
    const applied = await this.applier.apply(read);
    if (!options.skipCleanup) await this.claims.cleanup(batch, read.linkIds);
    return applied
      ? { batches: 1, links: read.linkIds.length, clicks: read.clicks }
      : { batches: 0, links: 0, clicks: 0 };
  }

  /** Plan retention (see StatsRetention). */
  applyRetention(): Promise<void> {
    return this.retention.apply();
  }

  private add(total: FoldResult, r: FoldResult): void {
    total.batches += r.batches;
    total.links += r.links;
    total.clicks += r.clicks;
  }
}
