import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

export const BIO_THEMES = ['light', 'dark'] as const;
export type BioTheme = (typeof BIO_THEMES)[number];

/**
 * A button of a bio page. `link` is set when `url` is one of the owner's own short links
 * (its links.id): a private or deleted link is left out of the page.
 */
export interface BioLinkItem {
  title: string;
  url: string;
  link?: number;
}

/**
 * A bio page (link-in-bio). Its id is the id of its `links` row (kind `bio`), which holds the
 * alias, branded domain, title and description: channel items and statistics use that id.
 */
@Entity('bio_pages')
export class BioPage {
  @PrimaryColumn({ name: 'link_id', type: 'int' })
  linkId: number;

  @Column({ name: 'user_id', type: 'int' })
  userId: number;

  @Column({ type: 'varchar', length: 100 })
  name: string;

  /** An http(s) image URL, '' for none. */
  @Column({ type: 'text', default: '' })
  avatar: string;

  @Column({ type: 'varchar', length: 8, default: 'light' })
  theme: BioTheme;

  @Column({ type: 'jsonb', default: () => "'[]'" })
  links: BioLinkItem[];

  /** `{network: url}` */
  @Column({ type: 'jsonb', default: () => "'{}'" })
  socials: Record<string, string>;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
