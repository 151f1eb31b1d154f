import { Module } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';

import { AppConfig, ConfigModule } from '@app/config';
import { DatabaseModule } from '@app/database';
import { QueueModule } from '@app/queue';
import { RedisModule } from '@app/redis';
import { WebhooksLibModule } from '@app/webhooks';

import { HealthJobsModule } from './health/health-jobs.module';
import { ImportJobsModule } from './imports/import-jobs.module';
import { PermanenceJobsModule } from './permanence/permanence-jobs.module';
import { QrJobsModule } from './qr/qr-jobs.module';
import { StatsJobsModule } from './stats/stats-jobs.module';
import { ThreatFeedJobsModule } from './threat-feeds/threat-feed-jobs.module';
import { WebhookJobsModule } from './webhooks/webhook-jobs.module';

/**
 * The worker: BullMQ processors only, no HTTP listener. Each job family is a module in its own
 * folder (processor + the services it needs), added to JOBS.
 */
const JOBS = [
  StatsJobsModule,
  QrJobsModule,
  WebhookJobsModule,
  ImportJobsModule,
  ThreatFeedJobsModule,
  PermanenceJobsModule,
  HealthJobsModule,
];

@Module({
  imports: [
    ConfigModule,
    LoggerModule.forRootAsync({
      inject: [AppConfig],
      useFactory: (config: AppConfig) => ({ pinoHttp: { level: config.LOG_LEVEL } }),
    }),
    DatabaseModule,
    RedisModule,
    QueueModule.forRoot(),
    WebhooksLibModule,
    ...JOBS,
  ],
})
export class WorkerModule {}
