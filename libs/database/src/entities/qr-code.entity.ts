import {
  Column,
  CreateDateColumn,
  Entity,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
} from 'typeorm';

export const QR_TYPES = ['text', 'vcard', 'link', 'email', 'phone', 'sms', 'wifi'] as const;
export type QrType = (typeof QR_TYPES)[number];
export type QrStatus = 'pending' | 'ready' | 'failed';

/** A QR code: its image encodes the short link of its `links` row (kind `qr`). */
@Entity('qr_codes')
export class QrCode {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'user_id', type: 'int' })
  userId: number;

  @Column({ name: 'link_id', type: 'int' })
  linkId: number;

  @Column({ type: 'varchar', length: 255, default: '' })
  name: string;

  @Column({ type: 'varchar', length: 8 })
  type: QrType;

  /** The validated `data` as sent (string or object, by type). */
  @Column({ type: 'jsonb' })
  data: unknown;

  @Column({ type: 'varchar', length: 32, default: 'rgb(255,255,255)' })
  background: string;

  @Column({ type: 'varchar', length: 32, default: 'rgb(0,0,0)' })
  foreground: string;

  @Column({ type: 'text', nullable: true })
  logo: string | null;

  @Column({ type: 'varchar', length: 8, default: 'pending' })
  status: QrStatus;

  /** Why the last render failed. */
  @Column({ type: 'text', nullable: true })
  error: string | null;

  /** Bumped by every change that needs a new image; a render only lands for the current version. */
  @Column({ name: 'render_version', type: 'int', default: 1 })
  renderVersion: number;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
