import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** A custom splash page shown before forwarding a link of type splash. */
@Entity('splash_pages')
export class SplashPage {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'user_id', type: 'int' })
  userId: number;

  @Column({ type: 'varchar', length: 100 })
  name: string;

  @Column({ type: 'varchar', length: 200, default: '' })
  title: string;

  @Column({ type: 'varchar', length: 2000, default: '' })
  message: string;

  @Column({ name: 'image_url', type: 'text', default: '' })
  imageUrl: string;

  /** Seconds before forwarding; 0 = only when the visitor clicks. */
  @Column({ type: 'int', default: 5 })
  countdown: number;

  /** A link shown beside the image (e.g. the product it shows); '' for none. */
  @Column({ type: 'text', default: '' })
  link: string;

  @Column({ name: 'button_text', type: 'varchar', length: 100, default: 'Continue' })
  buttonText: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
