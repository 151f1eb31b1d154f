import {
  Column,
  CreateDateColumn,
  Entity,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
} from 'typeorm';

/** What a short code is: a plain link, the short link of a QR code, or a bio page. */
export type LinkKind = 'link' | 'qr' | 'bio';
/** How a link forwards: straight 302, framed page, splash page first, or a CTA overlay. */
export type LinkType = 'direct' | 'frame' | 'splash' | 'overlay';

/**
 * Every short code of the service. Aliases are unique across the service (whatever the
 * domain), so one redirector and one statistics pipeline serve links, QR codes and bio pages.
 */
@Entity('links')
export class Link {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'user_id', type: 'int' })
  userId: number;

  @Column({ type: 'varchar', length: 8, default: 'link' })
  kind: LinkKind;

  @Column({ type: 'varchar', length: 64 })
  alias: string;

  /** Branded domain the short URL uses; null = PUBLIC_URL. */
  @Column({ name: 'domain_id', type: 'int', nullable: true })
  domainId: number | null;

  /** Target URL (for QR codes of non-link types, the payload URL such as mailto:). */
  @Column({ type: 'text' })
  url: string;

  @Column({ type: 'varchar', length: 255, default: '' })
  title: string;

  @Column({ type: 'varchar', length: 500, default: '' })
  description: string;

  @Column({ type: 'varchar', length: 16, default: 'direct' })
  type: LinkType;

  @Column({ name: 'overlay_id', type: 'int', nullable: true })
  overlayId: number | null;

  @Column({ name: 'splash_id', type: 'int', nullable: true })
  splashId: number | null;

  @Column({ name: 'password_hash', type: 'varchar', length: 255, nullable: true, select: false })
  passwordHash: string | null;

  @Column({ name: 'expires_at', type: 'timestamptz', nullable: true })
  expiresAt: Date | null;

  @Column({ name: 'campaign_id', type: 'int', nullable: true })
  campaignId: number | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
