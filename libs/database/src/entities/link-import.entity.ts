import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

export const IMPORT_SOURCES = ['csv', 'bitly', 'shlink', 'yourls', 'kutt'] as const;
export type ImportSource = (typeof IMPORT_SOURCES)[number];
export type ImportStatus = 'queued' | 'running' | 'done' | 'failed';

export interface ImportRowError {
  line: number;
  message: string;
}

/** An import of links from a file: its progress and its first row errors. */
@Entity('link_imports')
export class LinkImport {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'user_id', type: 'int' })
  userId: number;

  @Column({ type: 'varchar', length: 16 })
  source: ImportSource;

  /** How the file was sent: `csv` or `json`. */
  @Column({ type: 'varchar', length: 8 })
  format: 'csv' | 'json';

  @Column({ type: 'varchar', length: 16, default: 'queued' })
  status: ImportStatus;

  @Column({ type: 'int', default: 0 })
  total: number;

  @Column({ type: 'int', default: 0 })
  created: number;

  @Column({ type: 'int', default: 0 })
  skipped: number;

  @Column({ type: 'int', default: 0 })
  failed: number;

  @Column({ type: 'jsonb', default: [] })
  errors: ImportRowError[];

  /** Why the whole import failed (status `failed`). */
  @Column({ type: 'varchar', length: 300, nullable: true })
  message: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'finished_at', type: 'timestamptz', nullable: true })
  finishedAt: Date | null;
}
