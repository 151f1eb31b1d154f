import { OnWorkerEvent, Processor } from '@nestjs/bullmq';
import { Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Job } from 'bullmq';
import { DataSource } from 'typeorm';

import { decryptSecret, formatDateTime } from '@app/common';
import { AppConfig } from '@app/config';
import {
  DeliverWebhookPayload,
  JOB,
  LoggedWorkerHost,
  QUEUE,
  webhookBackoff,
  WORKER_OPTIONS,
} from '@app/queue';
import { OutgoingDelivery, WebhookDeliveries } from '@app/webhooks';

import { DeliverySpacing } from './delivery-spacing';
import { DeliveryGate } from './delivery-gate';
import { SendResult, WebhookSender } from './webhook-sender';

/** A webhook whose deliveries have failed this long is disabled. */
export const DISABLE_AFTER_MS = 24 * 3600 * 1000;
/** Finished deliveries kept per webhook. */
export const HISTORY = 100;

/**
 * Sends webhook deliveries (jobs made by WebhookRelay). The row is read at each attempt, so the
 * body is the same every time (same id, created, data) and only the timestamp and signature
 * change. A 2xx ends it; a failure is recorded on the row and thrown, so BullMQ retries with the
 * webhook backoff; the last attempt, a refused target, or a webhook failing for a day marks it
 * failed (the latter also disables the webhook). A visit batch first takes the webhook's next
 * one-second send slot (DeliverySpacing) and waits for it, so a worker that fell behind never
 * sends two within a second. Every delivery then passes the DeliveryGate (slots per webhook and
 * per user, the webhook's circuit breaker), waiting in the queue, not in a worker slot.
 * Receivers may see an event twice (a worker killed mid-request retries it): X-Webhook-Id tells
 * them.
 */
@Processor(QUEUE.webhooks, {
  ...WORKER_OPTIONS,
  // deliveries wait on receivers, not on the CPU; one webhook has at most 2 in flight and one
  // user 8 (DeliveryGate), so slow receivers of a few users never fill these slots
  concurrency: 64,
  settings: { backoffStrategy: (attemptsMade: number) => webhookBackoff(attemptsMade) },
})
export class WebhookProcessor extends LoggedWorkerHost {
  private readonly logger = new Logger(WebhookProcessor.name);

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly deliveries: WebhookDeliveries,
    private readonly sender: WebhookSender,
    private readonly config: AppConfig,
    private readonly spacing: DeliverySpacing,
    private readonly gate: DeliveryGate,
  ) {
    super();
  }

  @OnWorkerEvent('failed')
  onFailed(job: Job<DeliverWebhookPayload> | undefined, err: Error): void {
    this.logger.debug(`delivery ${job?.data.deliveryId} attempt failed: ${err.message}`);
  }

  async process(job: Job<DeliverWebhookPayload>, token?: string): Promise<string> {
    if (job.name !== JOB.deliverWebhook) throw new Error(`unknown job ${job.name}`);
    const id = job.data.deliveryId;
    const row = await this.deliveries.outgoing(id);
    if (!row || row.status !== 'pending') return 'gone';
    if (row.disabled_at) {
      await this.finish(row, 'failed', null, 'not sent: the webhook is disabled', { sent: false });
      return 'disabled';
    }
    await this.spacing.holdForSlot(job, token, row.webhook_id, row.event);
    const pass = await this.gate.enter(job, token, row.webhook_id, row.user_id);
    let result: SendResult | null = null;
    try {
      const body = JSON.stringify({
        id: row.uid,
        event: row.event,
        created: formatDateTime(row.created_at),
        data: row.data,
      });
      const secret = decryptSecret(row.secret_enc, this.config.secret);
      result = await this.sender.send(row.url, secret, { id: row.uid, event: row.event }, body);
    } finally {
      await this.gate.leave(
        pass,
        !result || result.permanent ? 'none' : result.answered ? 'answered' : 'silent',
      );
    }
    if (result.ok) {
      await this.finish(row, 'delivered', result.status, null, { sent: true, ok: true });
      return 'delivered';
    }

    // an UPDATE answers [rows, affected]
    const [[{ failing_since }]]: [Array<{ failing_since: Date }>, number] = await this.db.query(
      `UPDATE webhooks SET failing_since = COALESCE(failing_since, now()) WHERE id = $1 RETURNING failing_since`,
      [row.webhook_id],
    );
    const failingForADay = Date.now() - failing_since.getTime() >= DISABLE_AFTER_MS;
    const last =
      result.permanent || failingForADay || job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
    if (failingForADay) {
      await this.db.query(
        `UPDATE webhooks SET disabled_at = now(), disabled_reason = $2, updated_at = now()
          WHERE id = $1 AND disabled_at IS NULL`,
        [
          row.webhook_id,
          `deliveries failed for a day (since ${formatDateTime(failing_since)} UTC; last: ${result.error})`.slice(
            0,
            300,
          ),
        ],
      );
      this.logger.warn(`webhook ${row.webhook_id} disabled: failing for a day`);
    }
    await this.finish(row, last ? 'failed' : 'pending', result.status, result.error, {
      sent: true,
    });
    if (last) return 'failed';
    throw new Error(result.error ?? 'delivery failed');
  }

  /** Records the attempt; a finished delivery also trims the webhook's history. */
  private async finish(
    row: OutgoingDelivery,
    status: 'pending' | 'delivered' | 'failed',
    responseStatus: number | null,
    error: string | null,
    attempt: { sent: boolean; ok?: boolean },
  ): Promise<void> {
    await this.deliveries.recordAttempt(row.id, status, responseStatus, error, attempt.sent);
    if (attempt.ok)
      await this.db.query(
        `UPDATE webhooks SET failing_since = NULL WHERE id = $1 AND failing_since IS NOT NULL`,
        [row.webhook_id],
      );
    if (status !== 'pending') await this.deliveries.trimHistory(row.webhook_id, HISTORY);
  }
}
