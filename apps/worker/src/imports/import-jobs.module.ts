import { Module } from '@nestjs/common';

import { PlanService, PublicUrls } from '@app/common';
import {
  Blocklist,
  DestinationPolicy,
  LinkImportWriter,
  SafeBrowsing,
  ShortCodes,
  ThreatFeeds,
} from '@app/links';

import { ImportTurns } from './import-turns';
import { ImportProcessor } from './import.processor';
import { LinkImportRunner } from './link-import-runner';
import { WorkerLinkCacheModule } from '../link-cache/worker-link-cache.module';

/**
 * Link imports (`POST /api/import` stores the file and queues the job): the processor, the runner
 * and what creating links by the rules of url/add needs (@app/links).
 */
@Module({
  imports: [WorkerLinkCacheModule],
  providers: [
    ImportProcessor,
    LinkImportRunner,
    ImportTurns,
    LinkImportWriter,
    ShortCodes,
    DestinationPolicy,
    Blocklist,
    ThreatFeeds,
    SafeBrowsing,
    PlanService,
    PublicUrls,
  ],
})
export class ImportJobsModule {}
