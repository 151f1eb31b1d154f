import { InjectQueue, Processor } from '@nestjs/bullmq';
import { OnApplicationBootstrap } from '@nestjs/common';
import { Job, Queue } from 'bullmq';

import { JOB, LoggedWorkerHost, QUEUE, WORKER_OPTIONS } from '@app/queue';

import { HealthTickResult, LinkHealthRunner } from './link-health-runner';

/** Seconds between two ticks of the health job (each claims what is due). */
export const HEALTH_TICK_SECONDS = 10;

/**
 * Destination health on its own queue (`link-health`), one job at a time per worker: a BullMQ job
 * scheduler makes one tick every HEALTH_TICK_SECONDS for all workers together, and a tick's
 * probes are bounded (HEALTH_BATCH links, HEALTH_CONCURRENCY at once), so QR renders and the
 * statistics fold, on queues and workers of their own, never wait behind it.
 */
@Processor(QUEUE.health, { ...WORKER_OPTIONS, concurrency: 1 })
export class LinkHealthProcessor extends LoggedWorkerHost implements OnApplicationBootstrap {
  constructor(
    private readonly runner: LinkHealthRunner,
    @InjectQueue(QUEUE.health) private readonly queue: Queue,
  ) {
    super();
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.queue.upsertJobScheduler(
      JOB.probeLinks,
      { every: HEALTH_TICK_SECONDS * 1000 },
      { name: JOB.probeLinks, opts: { attempts: 1, removeOnComplete: true, removeOnFail: 100 } },
    );
  }

  async process(job: Job): Promise<HealthTickResult> {
    if (job.name !== JOB.probeLinks) throw new Error(`unknown job ${job.name}`);
    return this.runner.tick();
  }
}
