import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

import { numericTransformer } from '../transformers';

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

/** One event for one webhook: the outbox row, then its delivery record. */
@Entity('webhook_deliveries')
export class WebhookDelivery {
  /** bigserial (the migration creates it) */
  @PrimaryColumn({ type: 'bigint', transformer: numericTransformer })
  id: number;

  @Column({ name: 'webhook_id', type: 'int' })
  webhookId: number;

  /** X-Webhook-Id and the body's `id`: the same on every attempt. */
  @Column({ type: 'uuid' })
  uid: string;

  @Column({ type: 'varchar', length: 32 })
  event: string;

  @Column({ type: 'json' })
  data: unknown;

  @Column({ type: 'varchar', length: 16 })
  status: DeliveryStatus;

  @Column({ type: 'int' })
  attempts: number;

  @Column({ name: 'response_status', type: 'int', nullable: true })
  responseStatus: number | null;

  @Column({ type: 'varchar', length: 300, nullable: true })
  error: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
