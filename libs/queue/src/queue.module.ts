import { BullModule } from '@nestjs/bullmq';
import { DynamicModule, Module } from '@nestjs/common';

import { AppConfig } from '@app/config';
import { redisOptions } from '@app/redis';

import { QueueSettle } from './queue-settle';
import { DEFAULT_JOB_OPTIONS, QUEUE } from './queues';

/**
 * BullMQ wired to REDIS_URL under REDIS_PREFIX, with every queue registered. Producers inject
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
          useFactory: (config: AppConfig) => {
            const url = new URL(config.REDIS_URL);
            return {
              prefix: `${config.REDIS_PREFIX}:bull`,
              connection: {
                host: url.hostname,
                port: Number(url.port || 6379),
                username: url.username || undefined,
                password: url.password ? decodeURIComponent(url.password) : undefined,
                db: url.pathname.length > 1 ? Number(url.pathname.slice(1)) : 0,
                tls: url.protocol === 'rediss:' ? {} : undefined,
                ...redisOptions(),
                maxRetriesPerRequest: null,
                commandTimeout: undefined,
              },
              defaultJobOptions: DEFAULT_JOB_OPTIONS,
            };
          },
        }),
        BullModule.registerQueue(...Object.values(QUEUE).map((name) => ({ name }))),
      ],
      providers: [QueueSettle],
      exports: [BullModule],
    };
  }
}
