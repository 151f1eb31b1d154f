import {
  Column,
  CreateDateColumn,
  Entity,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
} from 'typeorm';

/** The events a webhook can subscribe to. */
export const WEBHOOK_EVENTS = [
  'link.created',
  'link.updated',
  'link.deleted',
  'link.flagged',
  'link.clicked',
  'link.broken',
  'link.recovered',
  'link.drifted',
  'qr.created',
  'qr.scanned',
  'member.added',
  'member.removed',
] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

/** A user's receiver of events. */
@Entity('webhooks')
export class Webhook {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'user_id', type: 'int' })
  userId: number;

  @Column({ type: 'varchar', length: 2000 })
  url: string;

  @Column({ type: 'text', array: true })
  events: string[];

  /** The signing secret, AES-GCM with APP_SECRET (it must be read back to sign). */
  @Column({ name: 'secret_enc', type: 'varchar', length: 512, select: false })
  secretEnc: string;

  /** The first failed delivery since the last successful one. */
  @Column({ name: 'failing_since', type: 'timestamptz', nullable: true })
  failingSince: Date | null;

  @Column({ name: 'disabled_at', type: 'timestamptz', nullable: true })
  disabledAt: Date | null;

  @Column({ name: 'disabled_reason', type: 'varchar', length: 300, nullable: true })
  disabledReason: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
