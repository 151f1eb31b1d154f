import { BullModule } from '@nestjs/bullmq';
import { DynamicModule, Module } from '@nestjs/common';

import { AppConfig } from '@app/config';

import { queueConnection, queuePrefix } from './queue-connection';
import { QueueSettle } from './queue-settle';
import { DEFAULT_JOB_OPTIONS, QUEUE } from './queues';

/**
 * BullMQ wired to Redis in the configured mode under REDIS_PREFIX, with every queue registered. Producers inject
 * `@InjectQueue(QUEUE.x)`; processors live in the worker app only.
 */
@Module({})
export class QueueModule {
  static forRoot(): DynamicModule {
    return {
      module: QueueModule,
      global: true,
      imports: [
        BullModule.forRootAsync({
          inject: [AppConfig],
          useFactory: (config: AppConfig) => ({
            prefix: queuePrefix(config),
            connection: queueConnection(config),
            defaultJobOptions: DEFAULT_JOB_OPTIONS,
          }),
        }),
        BullModule.registerQueue(...Object.values(QUEUE).map((name) => ({ name }))),
      ],
      providers: [QueueSettle],
      exports: [BullModule],
    };
  }
}
