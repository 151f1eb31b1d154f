import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

export type ChannelItemType = 'links' | 'bio' | 'qr';

/**
 * An item assigned to a channel. `item_id` is the id within its type: links.id for `links`
 * and `bio` (a bio page is a links row of kind `bio`), qr_codes.id for `qr`.
 */
@Entity('channel_items')
export class ChannelItem {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'channel_id', type: 'int' })
  channelId: number;

  @Column({ name: 'user_id', type: 'int' })
  userId: number;

  @Column({ name: 'item_type', type: 'varchar', length: 8 })
  itemType: ChannelItemType;

  @Column({ name: 'item_id', type: 'int' })
  itemId: number;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
