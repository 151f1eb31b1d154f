import { createReadStream } from 'node:fs';
import { readFile, unlink } from 'node:fs/promises';

import { Injectable, Logger } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { parse } from 'csv-parse';
import { EntityManager, Repository } from 'typeorm';

import { PlanService, Principal } from '@app/common';
import { AppConfig } from '@app/config';
import { LinkImport, User } from '@app/database';
import { ImportBatchResult, importFile, LinkImportWriter } from '@app/links';

import { columnKey, ImportRow, importRow, REQUIRED_COLUMNS } from './import-layouts';
import { ImportTurns } from './import-turns';

/** Rows validated and created together (one transaction, a few statements). */
export const IMPORT_BATCH = 500;
/** Row errors kept on the import. */
const MAX_ERRORS = 100;

class UnreadableFile extends Error {}

/** What became of a claim: the import runs now, waits for the user's earlier one, or is gone. */
export type Claim = { state: 'run'; userId: number } | { state: 'wait' } | { state: 'gone' };

type Progress = Pick<LinkImport, 'total' | 'created' | 'skipped' | 'failed' | 'errors'>;

/**
 * Runs an import in the worker: reads its file as a stream (csv-parse; memory does not grow with
 * the number of rows), maps each record through its source's layout, and hands batches of
 * IMPORT_BATCH rows to LinkImportWriter (the rules of url/add). Each batch is validated in its
 * turn (ImportTurns: imports of different users take turns batch by batch) and written while the
 * next one is validated; its progress is stored in the transaction that creates its links, so
 * an import resumed after a crash skips exactly the rows already written (the cursor is `total`)
 * and its counters stay exact. The plan's links limit stops it; an unreadable file fails it.
 */
@Injectable()
export class LinkImportRunner {
  private readonly logger = new Logger(LinkImportRunner.name);

  constructor(
    @InjectRepository(LinkImport) private readonly imports: Repository<LinkImport>,
    @InjectRepository(User) private readonly users: Repository<User>,
    private readonly plans: PlanService,
    private readonly writer: LinkImportWriter,
    private readonly turns: ImportTurns,
    private readonly config: AppConfig,
  ) {}

  /**
   * Makes import `id` its user's running one, unless an earlier import of theirs is queued or
   * running (one running import per user, in the order they were sent). An import already
   * running is one whose worker died: it resumes.
   */
  async claim(id: number): Promise<Claim> {
    const job = await this.imports.findOneBy({ id });
    if (!job || job.status === 'done' || job.status === 'failed') return { state: 'gone' };
    if (job.status === 'running') return { state: 'run', userId: job.userId };
    // an UPDATE answers [rows, affected]
    const [rows]: [Array<{ id: number }>, number] = await this.imports.query(
      `UPDATE link_imports i SET status = 'running'
        WHERE i.id = $1 AND i.status = 'queued'
          AND NOT EXISTS (SELECT 1 FROM link_imports o
                           WHERE o.user_id = i.user_id AND o.id <> i.id
                             AND (o.status = 'running' OR (o.status = 'queued' AND o.id < i.id)))
        RETURNING i.id`,
      [id],
    );
    return rows.length ? { state: 'run', userId: job.userId } : { state: 'wait' };
  }

  /** The user's next queued import (its job waits to be woken), or null. */
  async nextQueued(userId: number): Promise<number | null> {
    const next = await this.imports.findOne({
      select: { id: true },
      where: { userId, status: 'queued' },
      order: { id: 'ASC' },
    });
    return next?.id ?? null;
  }

  /** Marks an import failed (its job failed outside `run`, e.g. a worker that kept dying). */
  async fail(id: number, message: string): Promise<void> {
    await this.imports.update(
      { id, status: 'running' },
      { status: 'failed', message, finishedAt: new Date() },
    );
    await this.imports.update(
      { id, status: 'queued' },
      { status: 'failed', message, finishedAt: new Date() },
    );
  }

  /** Runs a claimed import to its end (or resumes it after the rows already written). */
  async run(id: number): Promise<void> {
    const job = await this.imports.findOneBy({ id });
    if (!job || job.status !== 'running') return;
    const file = importFile(this.config.STORAGE_DIR, id, job.format);
    const auth = await this.principal(job.userId);
    if (!auth) return;
    const progress: Progress = {
      total: job.total,
      created: job.created,
      skipped: job.skipped,
      failed: job.failed,
      errors: job.errors ?? [],
    };
    // rows already written by an earlier run (a worker died mid-import)
    let resumeAfter = progress.total;
    let message: string | null = null;
    try {
      // Batch n + 1 is validated while batch n is written (validation is CPU, writing waits on
      // Postgres); writes stay in order, one at a time.
      let batch: ImportRow[] = [];
      let writing: Promise<ImportBatchResult> | null = null;
      const settle = async (): Promise<boolean> => {
        if (!writing) return true;
        const r = await writing;
        writing = null;
        if (r.limitReached) message = r.errors[r.errors.length - 1].message;
        return !r.limitReached;
      };
      const flush = async (): Promise<boolean> => {
        const rows = batch;
        batch = [];
        const prepared = await this.turns.take(() => this.writer.prepareImport(auth, rows));
        if (!(await settle())) return false;
        writing = this.writer.writeImport(auth, prepared, (em, r) =>
          this.record(em, id, progress, rows.length, r),
        );
        // an unhandled rejection must not escape before settle() awaits it
        writing.catch(() => undefined);
        return true;
      };
      let open = true;
      for await (const row of this.rows(job, file)) {
        if (resumeAfter > 0) {
          resumeAfter -= 1;
          continue;
        }
        batch.push(row);
        if (batch.length === IMPORT_BATCH && !(open = await flush())) break;
      }
      if (open && batch.length) open = await flush();
      if (open) await settle();
    } catch (err) {
      if (!(err instanceof UnreadableFile))
        this.logger.error(`import ${id}: ${(err as Error).message}`);
      message =
        err instanceof UnreadableFile ? err.message : 'The import stopped on an unexpected error';
    }
    await this.imports.update(
      { id },
      {
        ...progress,
        status: message === null ? 'done' : 'failed',
        message,
        finishedAt: new Date(),
      },
    );
    await unlink(file).catch(() => undefined);
  }

  /** Adds a written batch to the progress, in the transaction that wrote it. */
  private async record(
    em: EntityManager,
    id: number,
    progress: Progress,
    rows: number,
    r: ImportBatchResult,
  ): Promise<void> {
    const next: Progress = {
      total: progress.total + rows,
      created: progress.created + r.created,
      skipped: progress.skipped + r.skipped,
      failed: progress.failed + r.errors.length,
      errors: [...progress.errors, ...r.errors].slice(0, MAX_ERRORS),
    };
    await em.update(LinkImport, { id }, next);
    // the transaction may still roll back: the counters move on once it has committed (writeImport
    // resolves after the commit, and settle() reads them only then)
    Object.assign(progress, next);
  }

  /** The file's rows, read as a stream (CSV) or from the stored JSON array. */
  private async *rows(job: LinkImport, file: string): AsyncGenerator<ImportRow> {
    if (job.format === 'json') {
      const items = JSON.parse(await readFile(file, 'utf8')) as Array<Record<string, unknown>>;
      for (let i = 0; i < items.length; i++) yield importRow(job.source, items[i], i + 1);
      return;
    }
    const required = REQUIRED_COLUMNS[job.source];
    const parser = createReadStream(file).pipe(
      parse({
        bom: true,
        columns: (header: string[]) => {
          const keys = header.map((h) => columnKey(String(h)));
          const missing = required.find((group) => !group.some((c) => keys.includes(c)));
          if (missing)
            throw new UnreadableFile(
              `line 1: the header has no "${missing[0]}" column (source ${job.source})`,
            );
          return header.map((h) => String(h));
        },
        skip_empty_lines: true,
        relax_column_count: true,
        info: true,
      }),
    );
    try {
      for await (const { record, info } of parser as AsyncIterable<{
        record: Record<string, unknown>;
        info: { lines: number };
      }>) {
        yield importRow(job.source, record, info.lines);
      }
    } catch (err) {
      if (err instanceof UnreadableFile) throw err;
      const e = err as Error & { lines?: number };
      throw new UnreadableFile(
        `${e.lines ? `line ${e.lines}: ` : ''}the file is not valid CSV (${e.message})`.slice(
          0,
          300,
        ),
      );
    }
  }

  /** The owner as the API would see them (plan in force); null when the user is gone. */
  private async principal(userId: number): Promise<Principal | null> {
    const user = await this.users.findOne({ where: { id: userId }, relations: { plan: true } });
    if (!user) return null;
    const plan = await this.plans.effectivePlan(user);
    return { user, plan, isAdmin: user.isAdmin, actor: user, role: 'owner', key: null };
  }
}
