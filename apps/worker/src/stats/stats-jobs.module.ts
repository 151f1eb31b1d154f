import { Module } from '@nestjs/common';

import { StatsFold } from '@app/stats';

import { WebhookJobsModule } from '../webhooks/webhook-jobs.module';
import { StatsFoldProcessor } from './stats-fold.processor';

/** The visit fold; its batches also become link.clicked / qr.scanned events (WebhookJobsModule). */
@Module({ imports: [WebhookJobsModule], providers: [StatsFold, StatsFoldProcessor] })
export class StatsJobsModule {}
