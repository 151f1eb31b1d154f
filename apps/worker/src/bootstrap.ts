import { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Logger } from 'nestjs-pino';

import { WorkerModule } from './worker.module';

/** Builds the worker as production runs it (also used by tests and benchmarks). */
export async function createWorker(
  options: { logger?: boolean } = {},
): Promise<INestApplicationContext> {
  const app = await NestFactory.createApplicationContext(WorkerModule, {
    bufferLogs: true,
    logger: options.logger === false ? false : undefined,
  });
  if (options.logger !== false) app.useLogger(app.get(Logger));
  // nothing stays in Nest's start-up buffer (without a logger it would only grow)
  app.flushLogs();
  return app;
}
