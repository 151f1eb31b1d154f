import {
  Column,
  CreateDateColumn,
  Entity,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
} from 'typeorm';

import { Plan } from './plan.entity';

export type PlanType = 'monthly' | 'yearly' | 'lifetime';

@Entity('users')
export class User {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'varchar', length: 254 })
  email: string;

  @Column({ type: 'varchar', length: 32 })
  username: string;

  @Column({ name: 'password_hash', type: 'varchar', length: 255, select: false })
  passwordHash: string;

  @Column({ name: 'is_admin', type: 'boolean', default: false })
  isAdmin: boolean;

  @Column({ name: 'plan_id', type: 'int' })
  planId: number;

  @ManyToOne(() => Plan, { onDelete: 'RESTRICT' })
  @JoinColumn({ name: 'plan_id' })
  plan?: Plan;

  @Column({ name: 'plan_type', type: 'varchar', length: 16, nullable: true })
  planType: PlanType | null;

  /** Membership expiry; null = never expires. */
  @Column({ type: 'timestamptz', nullable: true })
  expires: Date | null;

  /** SHA-256 hex digest of the API key: the lookup column. */
  @Column({ name: 'api_key_hash', type: 'char', length: 64, select: false })
  apiKeyHash: string;

  /** The API key encrypted with APP_SECRET (AES-256-GCM), for the admin view. */
  @Column({ name: 'api_key_enc', type: 'text', select: false })
  apiKeyEnc: string;

  @Column({ name: 'api_key_expires', type: 'timestamptz', nullable: true })
  apiKeyExpires: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
