import { Processor } from '@nestjs/bullmq';
import { BeforeApplicationShutdown } from '@nestjs/common';
import { Job } from 'bullmq';

import { ImportLinksPayload, JOB, LoggedWorkerHost, QUEUE, WORKER_OPTIONS } from '@app/queue';

import { LinkImportRunner } from './link-import-runner';

/**
 * The import job's consumer. It runs in the api process, unlike the worker's jobs: an import
 * creates links by the rules of url/add (LinksService, the destination policy, the link caches),
 * which live in the api. Two imports at a time per api process; a process that dies mid-import
 * leaves the job to another (BullMQ's stalled check) and the rows already created are skipped.
 */
@Processor(QUEUE.imports, { ...WORKER_OPTIONS, concurrency: 2 })
export class ImportProcessor extends LoggedWorkerHost implements BeforeApplicationShutdown {
  constructor(private readonly runner: LinkImportRunner) {
    super();
  }

  /**
   * Stops taking jobs without waiting for a running import (it resumes elsewhere, skipping the
   * rows it created). A graceful close could wait forever for the blocking connection of a
   * worker whose Redis went away and came back (seen with BullMQ 5.81).
   */
  async beforeApplicationShutdown(): Promise<void> {
    await Promise.race([
      this.worker.close(true).catch(() => undefined),
      new Promise((resolve) => setTimeout(resolve, 5_000).unref()),
    ]);
  }

  async process(job: Job<ImportLinksPayload>): Promise<void> {
    if (job.name !== JOB.importLinks) throw new Error(`unknown job ${job.name}`);
    await this.runner.run(job.data.importId);
  }
}
