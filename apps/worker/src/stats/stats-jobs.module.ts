import { Module } from '@nestjs/common';

import { AuditLog } from '@app/common';
import { StatsFold } from '@app/stats';

import { WebhookJobsModule } from '../webhooks/webhook-jobs.module';
import { StatsFoldProcessor } from './stats-fold.processor';

/**
 * The visit fold; its batches also become link.clicked / qr.scanned events (WebhookJobsModule).
 * The hourly retention pass also prunes the audit log (AuditLog.prune).
 */
@Module({ imports: [WebhookJobsModule], providers: [StatsFold, StatsFoldProcessor, AuditLog] })
export class StatsJobsModule {}
