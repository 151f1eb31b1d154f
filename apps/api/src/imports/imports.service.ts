import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rename, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';

import { InjectQueue } from '@nestjs/bullmq';
import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Queue } from 'bullmq';
import { EntityManager, In, Repository } from 'typeorm';

import {
  AppError,
  AuditLog,
  BadRequestError,
  NotFoundError,
  Principal,
  ServiceUnavailableError,
  TooManyRequestsError,
} from '@app/common';
import { AppConfig } from '@app/config';
import { ImportSource, LinkImport } from '@app/database';
import { importFile } from '@app/links';
import { IMPORT_JOB_OPTIONS, ImportLinksPayload, JOB, QUEUE } from '@app/queue';

import { ImportLinksDto } from './dto/import-links.dto';
import { ImportStartedView, ImportView, importView } from './dto/import.view';
import { Upload } from './upload.decorator';

/** A CSV import body may be this large. */
export const MAX_IMPORT_BYTES = 20 * 1024 * 1024;

/**
 * Imports of one user that may wait or run at once (their files wait in STORAGE_DIR): past it,
 * 429. One runs at a time; the rest wait their turn.
 */
export const MAX_PENDING_IMPORTS = 5;
const PENDING_RETRY_AFTER_SECONDS = 30;

/**
 * `POST /api/import`: the file is written to STORAGE_DIR (a CSV body streamed, never held in
 * memory), an import row is created and a job queued; the answer comes at once. The worker's job
 * (LinkImportRunner) reads the file and creates the links; `GET /api/import/:id` shows its
 * progress.
 */
@Injectable()
export class ImportsService {
  constructor(
    @InjectRepository(LinkImport) private readonly imports: Repository<LinkImport>,
    @InjectQueue(QUEUE.imports) private readonly queue: Queue<ImportLinksPayload>,
    private readonly config: AppConfig,
    private readonly audit: AuditLog,
  ) {}

  async start(
    auth: Principal,
    source: ImportSource,
    dto: ImportLinksDto,
    upload: Upload,
  ): Promise<ImportStartedView> {
    // refused before the upload is read when the user has too many already (checked again,
    // under the user's lock, when the import is recorded)
    await this.assertRoom(this.imports.manager, auth.user.id);
    const dir = join(this.config.STORAGE_DIR, 'imports');
    await mkdir(dir, { recursive: true });
    const staging = join(dir, `upload-${randomUUID()}`);
    let format: 'csv' | 'json';
    if (upload.csv) {
      if (dto.links !== undefined)
        throw new BadRequestError('Send either a CSV body or JSON links');
      format = 'csv';
      await this.receive(upload.csv, staging);
    } else if (dto.csv !== undefined) {
      // the CSV text inside JSON, as clients generated from the OpenAPI document may send it
      if (dto.links !== undefined) throw new BadRequestError('Send either csv or links, not both');
      format = 'csv';
      await writeFile(staging, dto.csv);
    } else {
      if (!dto.links)
        throw new BadRequestError(
          'links: send a CSV body (Content-Type: text/csv) or a JSON body {links: [...]} or {csv: "..."}',
        );
      format = 'json';
      await writeFile(staging, JSON.stringify(dto.links));
    }
    try {
      const saved = await this.imports.manager.transaction(async (em) => {
        await em.query('SELECT pg_advisory_xact_lock(hashtext($1), $2)', [
          'link_imports',
          auth.user.id,
        ]);
        await this.assertRoom(em, auth.user.id);
        const saved = await em.save(
          em.create(LinkImport, { userId: auth.user.id, source, format, status: 'queued' }),
        );
        // one entry for the import: it stands for the links its job creates (none per link)
        await this.audit.record(em, auth, {
          action: 'import.create',
          resource: { type: 'import', id: saved.id },
          changes: [format === 'json' ? 'links' : 'csv'],
        });
        return saved;
      });
      await rename(staging, importFile(this.config.STORAGE_DIR, saved.id, format));
      try {
        await this.queue.add(
          JOB.importLinks,
          { importId: saved.id },
          { ...IMPORT_JOB_OPTIONS, jobId: `import-${saved.id}` },
        );
      } catch {
        await this.imports.delete({ id: saved.id });
        await this.audit
          .withdraw(auth, { action: 'import.create', resource: { type: 'import', id: saved.id } })
          .catch(() => undefined);
        await unlink(importFile(this.config.STORAGE_DIR, saved.id, format)).catch(() => undefined);
        throw new ServiceUnavailableError('The import queue is unavailable, try again later');
      }
      return { id: saved.id };
    } finally {
      await unlink(staging).catch(() => undefined);
    }
  }

  /** 429 when the user has MAX_PENDING_IMPORTS imports queued or running. */
  private async assertRoom(em: EntityManager, userId: number): Promise<void> {
    const pending = await em.countBy(LinkImport, { userId, status: In(['queued', 'running']) });
    if (pending >= MAX_PENDING_IMPORTS)
      throw new TooManyRequestsError(
        `At most ${MAX_PENDING_IMPORTS} imports of yours may wait or run at once; retry when one has finished`,
        PENDING_RETRY_AFTER_SECONDS,
      );
  }

  async get(auth: Principal, id: number): Promise<{ data: ImportView }> {
    const found = await this.imports.findOneBy({ id, userId: auth.user.id });
    if (!found) throw new NotFoundError('Import');
    return { data: importView(found) };
  }

  /**
   * Streams the body to `path`, at most MAX_IMPORT_BYTES. Past it the rest of the body is read
   * and dropped (the client then gets its 413, rather than a reset connection).
   */
  private async receive(body: Readable, path: string): Promise<void> {
    let size = 0;
    await new Promise<void>((resolve, reject) => {
      const out = createWriteStream(path);
      let failure: Error | null = null;
      out.on('error', (err) => (failure ??= err));
      body.on('data', (chunk: Buffer) => {
        if (failure) return;
        size += chunk.length;
        if (size > MAX_IMPORT_BYTES) {
          failure = new AppError(413, 'Request body is larger than 20 MB');
          out.destroy();
          return;
        }
        if (!out.write(chunk)) {
          body.pause();
          out.once('drain', () => body.resume());
        }
      });
      body.once('error', () => reject(new BadRequestError('The CSV body could not be read')));
      body.once('end', () => {
        if (failure) return reject(failure);
        out.end(() => resolve());
      });
    }).catch(async (err: Error) => {
      await unlink(path).catch(() => undefined);
      throw err instanceof AppError ? err : new BadRequestError('The CSV body could not be read');
    });
    if (size === 0) throw new BadRequestError('The CSV body is empty');
  }
}
