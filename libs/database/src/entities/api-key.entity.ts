import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** A named API key: acts in one workspace for its creator, within its scopes. */
@Entity('api_keys')
export class ApiKey {
  @PrimaryGeneratedColumn()
  id: number;

  /** The workspace it acts in (its owner's user id). */
  @Column({ name: 'workspace_id', type: 'int' })
  workspaceId: number;

  /** Its creator: the key never goes beyond the creator's role in the workspace. */
  @Column({ name: 'user_id', type: 'int' })
  userId: number;

  @Column({ type: 'varchar', length: 64 })
  name: string;

  /** The start of the key, shown in lists. */
  @Column({ type: 'varchar', length: 16 })
  prefix: string;

  /** SHA-256 hex digest of the key: the lookup column. */
  @Column({ name: 'key_hash', type: 'char', length: 64, select: false })
  keyHash: string;

  /** `<area>:read`, `<area>:write` or `*`. */
  @Column({ type: 'text', array: true })
  scopes: string[];

  @Column({ type: 'timestamptz', nullable: true })
  expires: Date | null;

  /** Written at most once a minute per key, off the request path. */
  @Column({ name: 'last_used', type: 'timestamptz', nullable: true })
  lastUsed: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
