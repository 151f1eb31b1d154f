import { Processor, WorkerHost } from '@nestjs/bullmq';
import { Job } from 'bullmq';

import { ImportLinksPayload, JOB, QUEUE, WORKER_OPTIONS } from '@app/queue';

import { LinkImportRunner } from './link-import-runner';

/**
 * The import job's consumer. It runs in the api process, unlike the worker's jobs: an import
 * creates links by the rules of url/add (LinksService, the destination policy, the link caches),
 * which live in the api. Two imports at a time per api process; a process that dies mid-import
 * leaves the job to another (BullMQ's stalled check) and the rows already created are skipped.
 */
@Processor(QUEUE.imports, { ...WORKER_OPTIONS, concurrency: 2 })
export class ImportProcessor extends WorkerHost {
  constructor(private readonly runner: LinkImportRunner) {
    super();
  }

  async process(job: Job<ImportLinksPayload>): Promise<void> {
    if (job.name !== JOB.importLinks) throw new Error(`unknown job ${job.name}`);
    await this.runner.run(job.data.importId);
  }
}
