import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

@Entity('campaigns')
export class Campaign {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'user_id', type: 'int' })
  userId: number;

  @Column({ type: 'varchar', length: 100, default: '' })
  name: string;

  /** Rotator slug, 3-50 of [a-z0-9-], unique across the service; null = no rotator. */
  @Column({ type: 'varchar', length: 50, nullable: true })
  slug: string | null;

  @Column({ type: 'boolean', default: false })
  public: boolean;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
