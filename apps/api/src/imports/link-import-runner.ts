import { createReadStream } from 'node:fs';
import { readFile, unlink } from 'node:fs/promises';

import { Injectable, Logger } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { parse } from 'csv-parse';
import { Repository } from 'typeorm';

import { PlanService, Principal } from '@app/common';
import { AppConfig } from '@app/config';
import { LinkImport, User } from '@app/database';

import { ImportBatchResult, LinksService } from '../links/links.service';
import { columnKey, ImportRow, importRow, REQUIRED_COLUMNS } from './import-layouts';
import { importFile } from './imports.service';

/** Rows validated and created together (one transaction, a few statements). */
export const IMPORT_BATCH = 500;
/** Row errors kept on the import. */
const MAX_ERRORS = 100;

class UnreadableFile extends Error {}

/**
 * Runs an import: reads its file as a stream (csv-parse; memory does not grow with the number
 * of rows), maps each record through its source's layout, and hands batches of IMPORT_BATCH rows
 * to LinksService.importBatch (the rules of url/add). Progress is written to the import row
 * after every batch. The plan's links limit stops it; an unreadable file fails it.
 */
@Injectable()
export class LinkImportRunner {
  private readonly logger = new Logger(LinkImportRunner.name);

  constructor(
    @InjectRepository(LinkImport) private readonly imports: Repository<LinkImport>,
    @InjectRepository(User) private readonly users: Repository<User>,
    private readonly plans: PlanService,
    private readonly links: LinksService,
    private readonly config: AppConfig,
  ) {}

  async run(id: number): Promise<void> {
    const job = await this.imports.findOneBy({ id });
    if (!job || job.status === 'done' || job.status === 'failed') return;
    const file = importFile(this.config.STORAGE_DIR, id, job.format);
    const auth = await this.principal(job.userId);
    if (!auth) return;
    const progress = {
      total: 0,
      created: 0,
      skipped: 0,
      failed: 0,
      errors: [] as LinkImport['errors'],
    };
    await this.imports.update({ id }, { status: 'running', ...progress });
    let message: string | null = null;
    try {
      // Batch n + 1 is validated while batch n is written (validation is CPU, writing waits on
      // Postgres); writes stay in order, one at a time.
      let batch: ImportRow[] = [];
      let writing: Promise<ImportBatchResult> | null = null;
      let rowsWriting = 0;
      const settle = async (): Promise<boolean> => {
        if (!writing) return true;
        const r = await writing;
        writing = null;
        progress.total += rowsWriting;
        progress.created += r.created;
        progress.skipped += r.skipped;
        progress.failed += r.errors.length;
        for (const e of r.errors) if (progress.errors.length < MAX_ERRORS) progress.errors.push(e);
        await this.imports.update({ id }, progress);
        if (r.limitReached) message = r.errors[r.errors.length - 1].message;
        return !r.limitReached;
      };
      const flush = async (): Promise<boolean> => {
        const prepared = await this.links.prepareImport(auth, batch);
        const size = batch.length;
        batch = [];
        if (!(await settle())) return false;
        rowsWriting = size;
        writing = this.links.writeImport(auth, prepared);
        // an unhandled rejection must not escape before settle() awaits it
        writing.catch(() => undefined);
        return true;
      };
      let open = true;
      for await (const row of this.rows(job, file)) {
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
    return { user, plan, isAdmin: user.isAdmin };
  }
}
