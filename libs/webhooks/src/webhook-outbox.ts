import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';

import { WebhookEvent } from '@app/database';

/**
 * Writes webhook events into the outbox (`webhook_deliveries`), one row per subscribed, enabled
 * webhook of the owner, in the caller's transaction: the event exists exactly when the change
 * committed. The worker's relay hands the rows to BullMQ. One INSERT … SELECT, whether or not
 * the owner has webhooks.
 */
@Injectable()
export class WebhookOutbox {
  async record(
    em: EntityManager,
    userId: number,
    event: WebhookEvent,
    data: object,
  ): Promise<void> {
    await em.query(
      `INSERT INTO webhook_deliveries (webhook_id, event, data)
       SELECT id, $2::varchar, $3::json FROM webhooks
        WHERE user_id = $1 AND disabled_at IS NULL AND $2::text = ANY(events)`,
      [userId, event, JSON.stringify(data)],
    );
  }

  /** The same for many events of one owner (imports): one statement. */
  async recordMany(
    em: EntityManager,
    userId: number,
    event: WebhookEvent,
    data: object[],
  ): Promise<void> {
    if (!data.length) return;
    await em.query(
      `INSERT INTO webhook_deliveries (webhook_id, event, data)
       SELECT w.id, $2::varchar, d.data FROM webhooks w
        CROSS JOIN unnest($3::json[]) WITH ORDINALITY AS d(data, n)
        WHERE w.user_id = $1 AND w.disabled_at IS NULL AND $2::text = ANY(w.events)
        ORDER BY d.n, w.id`,
      [userId, event, data.map((d) => JSON.stringify(d))],
    );
  }
}
