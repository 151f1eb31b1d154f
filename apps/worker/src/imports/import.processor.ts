import { InjectQueue, OnWorkerEvent, Processor } from '@nestjs/bullmq';
import { BeforeApplicationShutdown, Logger } from '@nestjs/common';
import { DelayedError, Job, Queue } from 'bullmq';

import { ImportLinksPayload, JOB, LoggedWorkerHost, QUEUE, WORKER_OPTIONS } from '@app/queue';

import { LinkImportRunner } from './link-import-runner';

/** Imports running at once in one worker process (of different users; they take turns by batch). */
export const IMPORTS_AT_ONCE = 16;
/**
 * A queued import (its user has an earlier one queued or running) is woken when that one ends;
 * it looks again after this at the latest.
 */
const QUEUED_RECHECK_MS = 5_000;

/**
 * The import job's consumer (one job per import, `import-<id>`). One import per user runs at a
 * time, in the order they were sent: the job of a later one goes back to the queue as delayed
 * (holding no worker slot) until the earlier one ends and wakes it. Imports of different users run
 * side by side and take turns batch by batch (ImportTurns), so a 1-row import is never stuck
 * behind another user's large file. A worker that dies mid-import leaves the job to another
 * (BullMQ's stalled check), which resumes after the rows already written.
 */
@Processor(QUEUE.imports, { ...WORKER_OPTIONS, concurrency: IMPORTS_AT_ONCE })
export class ImportProcessor extends LoggedWorkerHost implements BeforeApplicationShutdown {
  private readonly logger = new Logger(ImportProcessor.name);

  constructor(
    private readonly runner: LinkImportRunner,
    @InjectQueue(QUEUE.imports) private readonly queue: Queue<ImportLinksPayload>,
  ) {
    super();
  }

  /**
   * Stops taking jobs without waiting for a running import (it resumes elsewhere, after the rows
   * it wrote). A graceful close could wait forever for the blocking connection of a worker
   * whose Redis went away and came back (seen with BullMQ 5.81).
   */
  async beforeApplicationShutdown(): Promise<void> {
    await Promise.race([
      this.worker.close(true).catch(() => undefined),
      new Promise((resolve) => setTimeout(resolve, 5_000).unref()),
    ]);
  }

  /** A job that failed outside the runner (e.g. its worker kept dying): its import says so. */
  @OnWorkerEvent('failed')
  async onFailed(job: Job<ImportLinksPayload> | undefined, err: Error): Promise<void> {
    if (!job) return;
    this.logger.error(`import ${job.data.importId} failed: ${err.message}`);
    await this.runner
      .fail(job.data.importId, 'The import stopped on an unexpected error')
      .catch(() => undefined);
  }

  async process(job: Job<ImportLinksPayload>, token?: string): Promise<void> {
    if (job.name !== JOB.importLinks) throw new Error(`unknown job ${job.name}`);
    const id = job.data.importId;
    const claim = await this.runner.claim(id);
    if (claim.state === 'gone') return;
    if (claim.state === 'wait') {
      await job.moveToDelayed(Date.now() + QUEUED_RECHECK_MS, token);
      throw new DelayedError();
    }
    const { userId } = claim;
    try {
      await this.runner.run(id);
    } finally {
      await this.wakeNext(userId).catch((err: Error) =>
        this.logger.warn(`next import of user ${userId} not woken: ${err.message}`),
      );
    }
  }

  /** Promotes the job of the user's next queued import (it would otherwise look again later). */
  private async wakeNext(userId: number): Promise<void> {
    const next = await this.runner.nextQueued(userId);
    if (next === null) return;
    const job = await Job.fromId(this.queue, `import-${next}`);
    if (job && (await job.isDelayed())) await job.promote();
  }
}
