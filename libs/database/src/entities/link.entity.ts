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
/** Private links are left out of public campaign list pages and bio pages. */
export type LinkStatus = 'public' | 'private';

/** The device names of device targeting (lower case). */
export const DEVICE_NAMES = [
  'iphone',
  'ipad',
  'android',
  'windows',
  'macos',
  'linux',
  'chromeos',
  'mobile',
  'tablet',
  'desktop',
] as const;
export type DeviceName = (typeof DEVICE_NAMES)[number];

/** Visitors from `location` (ISO 3166-1 alpha-2, upper case) go to `link`. */
export interface GeoTarget {
  location: string;
  link: string;
}
export interface DeviceTarget {
  device: DeviceName;
  link: string;
}
/** `language`: ISO 639-1, lower case. */
export interface LanguageTarget {
  language: string;
  link: string;
}
/** App links: iOS visitors go to `apple`, Android visitors to `google`. */
export interface DeepLink {
  apple?: string;
  google?: string;
}
/** A query parameter added to the destination. */
export interface LinkParameter {
  name: string;
  value: string;
}

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

  @Column({ type: 'varchar', length: 8, default: 'public' })
  status: LinkStatus;

  @Column({ name: 'geo_targets', type: 'jsonb', nullable: true })
  geoTargets: GeoTarget[] | null;

  @Column({ name: 'device_targets', type: 'jsonb', nullable: true })
  deviceTargets: DeviceTarget[] | null;

  @Column({ name: 'language_targets', type: 'jsonb', nullable: true })
  languageTargets: LanguageTarget[] | null;

  @Column({ name: 'deep_link', type: 'jsonb', nullable: true })
  deepLink: DeepLink | null;

  @Column({ type: 'jsonb', nullable: true })
  parameters: LinkParameter[] | null;

  /** The visitor's own query string is added to the destination. */
  @Column({ name: 'forward_query', type: 'boolean', default: false })
  forwardQuery: boolean;

  /** What link-preview fetchers are shown (Open Graph / Twitter Card). */
  @Column({ name: 'meta_title', type: 'varchar', length: 200, nullable: true })
  metaTitle: string | null;

  @Column({ name: 'meta_description', type: 'varchar', length: 500, nullable: true })
  metaDescription: string | null;

  @Column({ name: 'meta_image', type: 'text', nullable: true })
  metaImage: string | null;

  /** Counted visits after which the link behaves as expired. */
  @Column({ name: 'click_limit', type: 'int', nullable: true })
  clickLimit: number | null;

  /** Set when an admin disabled the link: it answers the 451 page. */
  @Column({ name: 'disabled_at', type: 'timestamptz', nullable: true })
  disabledAt: Date | null;

  /** Where an expired or used-up link sends visitors instead of the 410 page. */
  @Column({ name: 'expiration_redirect', type: 'text', nullable: true })
  expirationRedirect: string | null;

  /** Served instead of `url` while the target is broken (destination health); null = none. */
  @Column({ name: 'fallback_url', type: 'text', nullable: true })
  fallbackUrl: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
