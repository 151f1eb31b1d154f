import { getQueueToken } from '@nestjs/bullmq';
import { BeforeApplicationShutdown, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { Queue } from 'bullmq';

import { sharedQueueConnections } from './queue-connection';
import { QUEUE } from './queues';

/**
 * Lets every queue finish connecting before @nestjs/bullmq closes it. BullMQ (5.81) re-emits a
 * failed connection start as an `error` after `close()` has removed its listeners, so an app
 * stopped while its queues are still connecting dies of an unhandled `error` event. Waiting
 * (bounded) for the connection to settle first closes them cleanly.
 */
@Injectable()
export class QueueSettle implements BeforeApplicationShutdown, OnApplicationShutdown {
  constructor(private readonly moduleRef: ModuleRef) {}

  private queues(): Queue[] {
    return Object.values(QUEUE).map((name) =>
      this.moduleRef.get<Queue>(getQueueToken(name), { strict: false }),
    );
  }

  async beforeApplicationShutdown(): Promise<void> {
    await Promise.all(
      this.queues().map((queue) => {
        return Promise.race([
          queue.waitUntilReady().catch(() => undefined),
          new Promise((resolve) => setTimeout(resolve, 2_000).unref()),
        ]);
      }),
    );
  }

  /**
   * This app's cluster connection given to BullMQ, once the queues and workers are closed (only
   * its own: several apps may run in one process, as in the tests).
   */
  async onApplicationShutdown(): Promise<void> {
    const mine = new Set<unknown>(this.queues().map((queue) => queue.opts.connection));
    const connections = sharedQueueConnections.filter((c) => mine.has(c));
    for (const c of connections)
      sharedQueueConnections.splice(sharedQueueConnections.indexOf(c), 1);
    await Promise.all(connections.map((c) => c.quit().catch(() => c.disconnect())));
  }
}
