import { Module } from '@nestjs/common';

import { PlanService, PublicUrls } from '@app/common';
import {
  Blocklist,
  DestinationPolicy,
  LinkCacheAccess,
  LinkImportWriter,
  ShortCodes,
  ThreatFeeds,
} from '@app/links';

import { ImportTurns } from './import-turns';
import { ImportProcessor } from './import.processor';
import { LinkImportRunner } from './link-import-runner';
import { WorkerLinkCache } from './worker-link-cache';

/**
 * Link imports (`POST /api/import` stores the file and queues the job): the processor, the runner
 * and what creating links by the rules of url/add needs (@app/links).
 */
@Module({
  providers: [
    ImportProcessor,
    LinkImportRunner,
    ImportTurns,
    LinkImportWriter,
    ShortCodes,
    DestinationPolicy,
    Blocklist,
    ThreatFeeds,
    PlanService,
    PublicUrls,
    { provide: LinkCacheAccess, useClass: WorkerLinkCache },
  ],
  // the worker's one `link` cache member, also used by destination health
  exports: [LinkCacheAccess],
})
export class ImportJobsModule {}
