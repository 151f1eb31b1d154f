import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

export type OverlayType = 'message' | 'contact';

/** A CTA overlay shown over the target page of a link of type overlay. */
@Entity('overlays')
export class Overlay {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'user_id', type: 'int' })
  userId: number;

  @Column({ type: 'varchar', length: 16 })
  type: OverlayType;

  @Column({ type: 'varchar', length: 100 })
  name: string;

  @Column({ type: 'varchar', length: 1000, default: '' })
  message: string;

  @Column({ name: 'button_text', type: 'varchar', length: 100, default: '' })
  buttonText: string;

  @Column({ name: 'button_link', type: 'text', default: '' })
  buttonLink: string;

  @Column({ name: 'bg_color', type: 'varchar', length: 7, default: '#ffffff' })
  bgColor: string;

  @Column({ name: 'text_color', type: 'varchar', length: 7, default: '#000000' })
  textColor: string;

  @Column({ name: 'button_color', type: 'varchar', length: 7, default: '#0055ff' })
  buttonColor: string;

  /** `bl`, `br`, `tl`, `tr`: corner of the page the overlay sits in. */
  @Column({ type: 'varchar', length: 2, default: 'bl' })
  position: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
