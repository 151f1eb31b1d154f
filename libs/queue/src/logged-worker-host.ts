import { OnWorkerEvent, WorkerHost } from '@nestjs/bullmq';
import { Logger } from '@nestjs/common';

/**
 * The base of every BullMQ processor (worker and api): its worker's `error` events (Redis gone,
 * a job lock that could not be renewed) are logged as warnings in the structured log. Unheard,
 * BullMQ prints them with `console.error`, outside the log's format and LOG_LEVEL.
 */
export abstract class LoggedWorkerHost extends WorkerHost {
  private readonly errorLog = new Logger(this.constructor.name);

  @OnWorkerEvent('error')
  onWorkerError(err: Error): void {
    this.errorLog.warn(`worker error: ${err?.message ?? err}`);
  }
}
