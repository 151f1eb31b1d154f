import { InjectQueue, Processor } from '@nestjs/bullmq';
import { Logger, OnApplicationBootstrap } from '@nestjs/common';
import { Job, Queue } from 'bullmq';

import { AuditLog } from '@app/common';
import { AppConfig } from '@app/config';
import { JOB, LoggedWorkerHost, QUEUE, WORKER_OPTIONS } from '@app/queue';
import { RedisService } from '@app/redis';
import { FoldResult, StatsFold } from '@app/stats';

const RETENTION_EVERY_SECONDS = 3600;

/**
 * Folds visit counters into Postgres every STATS_FOLD_SECONDS (a BullMQ job scheduler, so
 * several workers produce one job per interval), and applies plan retention hourly: to the
 * statistics, then to the audit log (in batches; a failure there is logged, the fold stands).
 */
@Processor(QUEUE.stats, { ...WORKER_OPTIONS, concurrency: 1 })
export class StatsFoldProcessor extends LoggedWorkerHost implements OnApplicationBootstrap {
  private readonly logger = new Logger(StatsFoldProcessor.name);

  constructor(
    private readonly fold: StatsFold,
    private readonly config: AppConfig,
    private readonly redis: RedisService,
    @InjectQueue(QUEUE.stats) private readonly queue: Queue,
    private readonly audit: AuditLog,
  ) {
    super();
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.queue.upsertJobScheduler(
      JOB.foldStats,
      { every: this.config.STATS_FOLD_SECONDS * 1000 },
      { name: JOB.foldStats, opts: { attempts: 1, removeOnComplete: true, removeOnFail: 100 } },
    );
  }

  async process(job: Job): Promise<FoldResult> {
    if (job.name !== JOB.foldStats) throw new Error(`unknown job ${job.name}`);
    const result = await this.fold.fold();
    if (result.clicks)
      this.logger.log(
        `folded ${result.clicks} clicks of ${result.links} links in ${result.batches} batches`,
      );
    const due = await this.redis.client.set(
      this.redis.key('st', 'retention'),
      '1',
      'EX',
      RETENTION_EVERY_SECONDS,
      'NX',
    );
    if (due === 'OK') {
      await this.fold.applyRetention();
      await this.pruneAudit();
    }
    return result;
  }

  private async pruneAudit(): Promise<void> {
    try {
      const pruned = await this.audit.prune();
      if (pruned) this.logger.log(`pruned ${pruned} audit log entries past their plan's retention`);
    } catch (err) {
      this.logger.error(`audit log pruning failed: ${(err as Error).message}`);
    }
  }
}
