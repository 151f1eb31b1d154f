import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** A branded domain: `domain` is `http(s)://host`, unique across the service (case-insensitive). */
@Entity('domains')
export class Domain {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'user_id', type: 'int' })
  userId: number;

  @Column({ type: 'varchar', length: 270 })
  domain: string;

  /** Lower-case host name (no scheme, no port), for lookups by the Host header. */
  @Column({ type: 'varchar', length: 255 })
  host: string;

  @Column({ name: 'redirect_root', type: 'text', default: '' })
  redirectRoot: string;

  @Column({ name: 'redirect_404', type: 'text', default: '' })
  redirect404: string;

  /** The value the TXT record `_linkverify.<host>` must hold to prove ownership. */
  @Column({ name: 'verify_token', type: 'varchar', length: 64 })
  verifyToken: string;

  /** Null until ownership is proven (DOMAIN_VERIFY=dns); the domain serves only once verified. */
  @Column({ name: 'verified_at', type: 'timestamptz', nullable: true })
  verifiedAt: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
