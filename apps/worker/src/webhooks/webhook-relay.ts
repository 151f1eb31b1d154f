import { InjectQueue } from '@nestjs/bullmq';
import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Queue } from 'bullmq';
import { DataSource } from 'typeorm';

import { DeliverWebhookPayload, JOB, QUEUE, WEBHOOK_JOB_OPTIONS } from '@app/queue';
import { WebhookDeliveries } from '@app/webhooks';

/** How often the relay looks at the outbox. */
export const RELAY_EVERY_MS = 250;
/** Outbox rows handed to BullMQ per transaction. */
const RELAY_BATCH = 500;

/**
 * The outbox relay: delivery rows written by the api and the fold (no `queued_at` yet) become
 * BullMQ jobs. Rows are locked (SKIP LOCKED: several workers share the outbox), added to the
 * queue with jobId `whd-<id>`, then marked, in one transaction: a crash before the commit leaves
 * them in the outbox and the next pass adds them again, which BullMQ ignores for a job id it
 * still holds. A row's `not_before` (visit batches: one per webhook per second) becomes the
 * job's delay.
 */
@Injectable()
export class WebhookRelay implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(WebhookRelay.name);
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly deliveries: WebhookDeliveries,
    @InjectQueue(QUEUE.webhooks) private readonly queue: Queue<DeliverWebhookPayload>,
  ) {}

  onApplicationBootstrap(): void {
    this.schedule();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.drain()
        .then(() => undefined)
        .catch((err: Error) => this.logger.warn(`outbox relay: ${err.message}`))
        .finally(() => this.schedule());
    }, RELAY_EVERY_MS);
  }

  /** Relays until the outbox is empty (for tests: one call hands over everything). */
  async drain(): Promise<number> {
    let total = 0;
    for (;;) {
      const n = await this.relayOnce();
      total += n;
      if (n < RELAY_BATCH || this.stopped) return total;
    }
  }

  private relayOnce(): Promise<number> {
    return this.db.transaction(async (em) => {
      const rows = await this.deliveries.unqueued(em, RELAY_BATCH);
      if (!rows.length) return 0;
      await this.queue.addBulk(
        rows.map((r) => ({
          name: JOB.deliverWebhook,
          data: { deliveryId: Number(r.id) },
          opts: { ...WEBHOOK_JOB_OPTIONS, jobId: `whd-${r.id}`, delay: r.delay || undefined },
        })),
      );
      await this.deliveries.markQueued(
        em,
        rows.map((r) => r.id),
      );
      return rows.length;
    });
  }
}
