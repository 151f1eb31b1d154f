import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';

import { PageQueryDto, paginate, Paginated } from '@app/common';
import { DeliveryStatus, WebhookDelivery, WebhookEvent } from '@app/database';

/** A delivery with its webhook, as the worker sends it. */
export interface OutgoingDelivery {
  id: string;
  uid: string;
  event: string;
  data: unknown;
  status: string;
  created_at: Date;
  webhook_id: number;
  user_id: number;
  url: string;
  secret_enc: string;
  disabled_at: Date | null;
}

/** An outbox row the relay hands to BullMQ: its id, and its delay (ms until `not_before`). */
export interface UnqueuedDelivery {
  id: string;
  delay: number;
}

/**
 * The `webhook_deliveries` store: every statement on the table is here (one writer per table).
 * A row is first the outbox entry of an event (written in the transaction of the change it
 * reports: links, QR codes, imports, the visit fold, test deliveries), then handed to BullMQ by
 * the worker's relay (`queued_at`), then the delivery's record (status, attempts, last answer),
 * of which each webhook keeps its latest HISTORY finished ones.
 */
@Injectable()
export class WebhookDeliveries {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /**
   * A CTE (`hooks AS (…)`) writing one `link.created` row per subscribed webhook of the owner
   * (`$userParam`) for the link the CTE `source` returned (`id`), with `$dataParam` (a JSON
   * object) plus that id: for a statement that inserts the link and its event at once.
   */
  static createdCte(source: string, userParam: number, dataParam: number): string {
    return `hooks AS (
      INSERT INTO webhook_deliveries (webhook_id, event, data)
      SELECT w.id, 'link.created', (jsonb_build_object('id', c.id) || $${dataParam}::jsonb)::json
        FROM webhooks w CROSS JOIN ${source} c
       WHERE w.user_id = $${userParam} AND w.disabled_at IS NULL AND 'link.created' = ANY(w.events))`;
  }

  /**
   * `createdCte` for many links at once: for each row of `source` (`id`, `alias`), one row per
   * subscribed webhook of the owner `input` names for that alias (`_event_owner`), with its JSON
   * object (`_event_data`) plus the id (`batchFields` are `input`'s columns).
   */
  static createdBatchCte(source: string, input: string): string {
    return `hooks AS (
      INSERT INTO webhook_deliveries (webhook_id, event, data)
      SELECT w.id, 'link.created', (jsonb_build_object('id', c.id) || i._event_data)::json
        FROM ${source} c JOIN ${input} i ON i.alias = c.alias
        JOIN webhooks w ON w.user_id = i._event_owner
       WHERE w.disabled_at IS NULL AND 'link.created' = ANY(w.events))`;
  }

  /** The columns `createdBatchCte` reads from its input (`jsonb_to_record`'s definition list). */
  static readonly batchFields = '_event_owner int, _event_data jsonb';

  /** One row per subscribed, enabled webhook of the owner, in the caller's transaction. */
  async insertForSubscribers(
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

  /** The same for many events of one owner: one statement, rows in the events' order. */
  async insertManyForSubscribers(
    em: EntityManager,
    userId: number,
    event: WebhookEvent,
    data: object[],
  ): Promise<void> {
    await em.query(
      `INSERT INTO webhook_deliveries (webhook_id, event, data)
       SELECT w.id, $2::varchar, d.data FROM webhooks w
        CROSS JOIN unnest($3::json[]) WITH ORDINALITY AS d(data, n)
        WHERE w.user_id = $1 AND w.disabled_at IS NULL AND $2::text = ANY(w.events)
        ORDER BY d.n, w.id`,
      [userId, event, data.map((d) => JSON.stringify(d))],
    );
  }

  /**
   * Events of several owners at once (the worker's destination health: link.broken,
   * link.recovered, link.drifted of a batch of probes): one row per subscribed, enabled webhook of
   * each event's owner, in the events' order, one statement in the caller's transaction.
   */
  async insertForOwners(
    em: EntityManager,
    events: Array<{ userId: number; event: WebhookEvent; data: object }>,
  ): Promise<void> {
    if (!events.length) return;
    await em.query(
      `INSERT INTO webhook_deliveries (webhook_id, event, data)
       SELECT w.id, e.event, e.data
         FROM unnest($1::int[], $2::varchar[], $3::json[]) WITH ORDINALITY AS e(user_id, event, data, n)
         JOIN webhooks w ON w.user_id = e.user_id AND w.disabled_at IS NULL AND e.event::text = ANY(w.events)
        ORDER BY e.n, w.id`,
      [
        events.map((e) => e.userId),
        events.map((e) => e.event),
        events.map((e) => JSON.stringify(e.data)),
      ],
    );
  }

  /**
   * Events for one webhook, one second apart from `first` (`not_before`: the relay delays each
   * job until then), in the caller's transaction.
   */
  async insertSpaced(
    em: EntityManager,
    webhookId: number,
    events: Array<{ event: string; data: object }>,
    first: Date,
  ): Promise<void> {
    await em.query(
      `INSERT INTO webhook_deliveries (webhook_id, event, data, not_before)
       SELECT $1, e.event, e.data, $4::timestamptz + (e.n - 1) * interval '1 second'
         FROM unnest($2::varchar[], $3::json[]) WITH ORDINALITY AS e(event, data, n)`,
      [webhookId, events.map((d) => d.event), events.map((d) => JSON.stringify(d.data)), first],
    );
  }

  /** A `webhook.test` delivery of one webhook: its id. */
  async insertTest(webhookId: number, data: object): Promise<number> {
    const [row] = (await this.db.query(
      `INSERT INTO webhook_deliveries (webhook_id, event, data) VALUES ($1, 'webhook.test', $2::json) RETURNING id`,
      [webhookId, JSON.stringify(data)],
    )) as Array<{ id: string }>;
    return Number(row.id);
  }

  /** A page of one webhook's deliveries, newest first. */
  page<R>(
    webhookId: number,
    query: PageQueryDto,
    key: string,
    view: (d: WebhookDelivery) => R,
  ): Promise<Paginated<R>> {
    const qb = this.db
      .getRepository(WebhookDelivery)
      .createQueryBuilder('d')
      .where('d.webhookId = :id', { id: webhookId });
    return paginate(qb, query, key, view);
  }

  /**
   * Up to `limit` outbox rows not handed to BullMQ yet, oldest first, locked in the caller's
   * transaction (SKIP LOCKED: several relays share the outbox).
   */
  unqueued(em: EntityManager, limit: number): Promise<UnqueuedDelivery[]> {
    return em.query(
      `SELECT id, GREATEST(0, EXTRACT(EPOCH FROM (not_before - now())) * 1000)::int AS delay
         FROM webhook_deliveries WHERE queued_at IS NULL
        ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED`,
      [limit],
    );
  }

  async markQueued(em: EntityManager, ids: string[]): Promise<void> {
    await em.query(`UPDATE webhook_deliveries SET queued_at = now() WHERE id = ANY($1::bigint[])`, [
      ids,
    ]);
  }

  /** A delivery and its webhook, read at each attempt. */
  async outgoing(id: number): Promise<OutgoingDelivery | undefined> {
    const [row]: OutgoingDelivery[] = await this.db.query(
      `SELECT d.id, d.uid, d.event, d.data, d.status, d.created_at, w.id AS webhook_id, w.user_id, w.url,
              w.secret_enc, w.disabled_at
         FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
        WHERE d.id = $1`,
      [id],
    );
    return row;
  }

  /** Records an attempt (`sent`: a request went out) and the delivery's status after it. */
  async recordAttempt(
    id: string,
    status: DeliveryStatus,
    responseStatus: number | null,
    error: string | null,
    sent: boolean,
  ): Promise<void> {
    await this.db.query(
      `UPDATE webhook_deliveries
          SET status = $2::varchar, attempts = attempts + $5, response_status = $3, error = $4,
              finished_at = CASE WHEN $2::varchar = 'pending' THEN NULL ELSE now() END
        WHERE id = $1`,
      [id, status, responseStatus, error, sent ? 1 : 0],
    );
  }

  /** Deletes a webhook's finished deliveries beyond its latest `keep`. */
  async trimHistory(webhookId: number, keep: number): Promise<void> {
    await this.db.query(
      `DELETE FROM webhook_deliveries
        WHERE webhook_id = $1 AND status <> 'pending'
          AND id <= (SELECT id FROM webhook_deliveries WHERE webhook_id = $1 AND status <> 'pending'
                      ORDER BY id DESC OFFSET $2 LIMIT 1)`,
      [webhookId, keep],
    );
  }
}
