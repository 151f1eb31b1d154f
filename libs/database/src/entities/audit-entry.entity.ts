import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** One successful change in a workspace: who, with which key, did what to which resource. */
@Entity('audit_log')
export class AuditEntry {
  /** bigserial: read as a string by pg, a number in views. */
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column({ name: 'workspace_id', type: 'int' })
  workspaceId: number;

  /** Null once the actor's account is deleted (the e-mail stays). */
  @Column({ name: 'actor_id', type: 'int', nullable: true })
  actorId: number | null;

  @Column({ name: 'actor_email', type: 'varchar', length: 254 })
  actorEmail: string;

  /** The named key used, or null for the personal key or a session. */
  @Column({ name: 'key_id', type: 'int', nullable: true })
  keyId: number | null;

  /** `<resource>.<verb>`, e.g. `link.update`. */
  @Column({ type: 'varchar', length: 48 })
  action: string;

  @Column({ name: 'resource_type', type: 'varchar', length: 24 })
  resourceType: string;

  @Column({ name: 'resource_id', type: 'varchar', length: 64, nullable: true })
  resourceId: string | null;

  /** The names of the fields changed; never values. */
  @Column({ type: 'text', array: true })
  changes: string[];

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
