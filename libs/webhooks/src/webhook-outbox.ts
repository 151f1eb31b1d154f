import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';

import { WebhookEvent } from '@app/database';

import { WebhookDeliveries } from './webhook-deliveries';

/**
 * Writes webhook events into the outbox (`webhook_deliveries`, through WebhookDeliveries), one
 * row per subscribed, enabled webhook of the owner, in the caller's transaction: the event exists
 * exactly when the change committed. The worker's relay hands the rows to BullMQ. One
 * INSERT … SELECT, whether or not the owner has webhooks.
 */
@Injectable()
export class WebhookOutbox {
  constructor(private readonly deliveries: WebhookDeliveries) {}

  /** See WebhookDeliveries.createdCte: a link and its `link.created` rows in one statement. */
  static createdCte(source: string, userParam: number, dataParam: number): string {
    return WebhookDeliveries.createdCte(source, userParam, dataParam);
  }

  /** `createdCte` for many links at once (see WebhookDeliveries.createdBatchCte). */
  static createdBatchCte(source: string, input: string): string {
    return WebhookDeliveries.createdBatchCte(source, input);
  }

  /** The columns `createdBatchCte` reads from its input. */
  static readonly batchFields = WebhookDeliveries.batchFields;

  /** One input row's fields of `createdBatchCte`: the link's owner and its event's data. */
  static createdBatchRow(owner: number, data: object): Record<string, unknown> {
    return { _event_owner: owner, _event_data: data };
  }

  record(em: EntityManager, userId: number, event: WebhookEvent, data: object): Promise<void> {
    return this.deliveries.insertForSubscribers(em, userId, event, data);
  }

  /** Events of several owners (each its own subscribers): one statement. */
  recordForOwners(
    em: EntityManager,
    events: Array<{ userId: number; event: WebhookEvent; data: object }>,
  ): Promise<void> {
    return this.deliveries.insertForOwners(em, events);
  }

  /** The same for many events of one owner (imports): one statement. */
  async recordMany(
    em: EntityManager,
    userId: number,
    event: WebhookEvent,
    data: object[],
  ): Promise<void> {
    if (!data.length) return;
    await this.deliveries.insertManyForSubscribers(em, userId, event, data);
  }
}
