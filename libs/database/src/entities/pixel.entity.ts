import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

export const PIXEL_TYPES = [
  'vendor01pixel',
  'vendor02pixel',
  'vendor03pixel',
  'vendor04pixel',
  'vendor05pixel',
  'vendor06pixel',
  'vendor07pixel',
  'vendor08pixel',
  'vendor09',
  'vendor10',
  'vendor11',
  'vendor12',
  'vendor13',
] as const;
export type PixelType = (typeof PIXEL_TYPES)[number];

@Entity('pixels')
export class Pixel {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'user_id', type: 'int' })
  userId: number;

  @Column({ type: 'varchar', length: 32 })
  type: PixelType;

  @Column({ type: 'varchar', length: 100 })
  name: string;

  /** 1-255 of [A-Za-z0-9_.:-]: it is written into HTML pages. */
  @Column({ type: 'varchar', length: 255 })
  tag: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
