import { availableParallelism } from 'node:os';

import { Processor } from '@nestjs/bullmq';
import { Logger, OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Job, UnrecoverableError } from 'bullmq';
import { Pool, QueryResult } from 'pg';
import { DataSource } from 'typeorm';
import { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';

import { PublicUrls } from '@app/common';
import { parseRgb, Rgb } from '@app/qr';
import {
  DeleteQrImagesPayload,
  JOB,
  LoggedWorkerHost,
  QrLook,
  QUEUE,
  RenderQrPayload,
  WORKER_OPTIONS,
} from '@app/queue';

import { LogoError } from './logo-error';
import { LogoLoader } from './logo-loader';
import { QrImageStore, StagedImages } from './qr-image-store';
import { QrRenderer } from './qr-renderer';

interface QrRow extends QrLook {
  render_version: number;
}

/**
 * Jobs in flight per render slot. A job also waits on things that use no CPU (a logo URL up to
 * 5 s, the database, file writes); with several jobs per slot those waits overlap while the
 * renders themselves stay at one per slot (QrRenderer.slots), so the cores stay busy.
 */
export const JOBS_PER_RENDER_SLOT = 4;

/**
 * Renders QR images and deletes them. A render lands only for the row's current render_version:
 * the files are renamed into place and the row marked ready while the row is locked, so an older
 * job finishing late can neither overwrite a newer image nor mark it ready, and a render racing a
 * delete leaves no files behind. After the last attempt (or at once for a permanent failure, such
 * as a refused logo) the row is marked failed with the reason.
 */
@Processor(QUEUE.qr, {
  ...WORKER_OPTIONS,
  concurrency: availableParallelism() * JOBS_PER_RENDER_SLOT,
})
export class QrProcessor extends LoggedWorkerHost implements OnApplicationBootstrap {
  private readonly logger = new Logger(QrProcessor.name);

  constructor(
    private readonly urls: PublicUrls,
    @InjectDataSource() private readonly db: DataSource,
    private readonly renderer: QrRenderer,
    private readonly logos: LogoLoader,
    private readonly store: QrImageStore,
  ) {
    super();
  }

  onApplicationBootstrap(): void {
    this.worker.concurrency = this.renderer.slots.size * JOBS_PER_RENDER_SLOT;
  }

  async process(job: Job): Promise<string> {
    switch (job.name) {
      case JOB.renderQr:
        return this.render(job as Job<RenderQrPayload>);
      case JOB.deleteQrImages:
        return this.deleteImages((job.data as DeleteQrImagesPayload).code);
      default:
        throw new UnrecoverableError(`unknown job ${job.name}`);
    }
  }

  private async render(job: Job<RenderQrPayload>): Promise<string> {
    const { qrId, version, look } = job.data;
    let row: QrLook | undefined = look;
    if (!row) {
      const [found] = (await this.db.query(
        `SELECT l.alias AS code, q.background, q.foreground, q.logo, q.render_version
           FROM qr_codes q JOIN links l ON l.id = q.link_id WHERE q.id = $1`,
        [qrId],
      )) as QrRow[];
      if (!found) return 'gone';
      if (found.render_version !== version) return 'stale';
      row = found;
    }
    try {
      const logo = row.logo ? await this.logos.load(row.logo) : null;
      const { png, svg } = await this.renderer.render({
        text: this.urls.qr(row.code),
        background: parseRgb(row.background) as Rgb,
        foreground: parseRgb(row.foreground) as Rgb,
        logo,
      });
      const staged = await this.store.stage(row.code, { png, svg });
      let landed = false;
      try {
        landed = await this.land(qrId, version, staged);
      } finally {
        if (!landed) await this.store.discard(staged);
      }
      return landed ? 'ready' : 'stale';
    } catch (err) {
      return this.failed(job, err);
    }
  }

  /**
   * Under the row's lock: if the row is still at `version`, marks it ready and renames the staged
   * files into place before the commit. Two round trips on a pooled connection of the driver's
   * own (no TypeORM query runner): BEGIN with the update, which takes the lock and tells whether
   * the version still holds; then COMMIT once the files are in place, or ROLLBACK. Only integers
   * of the job are written into the SQL text.
   */
  private async land(qrId: number, version: number, staged: StagedImages): Promise<boolean> {
    if (!Number.isSafeInteger(qrId) || !Number.isSafeInteger(version))
      throw new UnrecoverableError('invalid render job');
    const client = await ((this.db.driver as PostgresDriver).master as Pool).connect();
    let broken: Error | undefined;
    try {
      const results = (await client.query(
        `BEGIN; UPDATE qr_codes SET status = 'ready', error = NULL, updated_at = now() WHERE id = ${qrId} AND render_version = ${version}`,
      )) as unknown as QueryResult[];
      if (results[1].rowCount !== 1) {
        await client.query('ROLLBACK');
        return false;
      }
      await this.store.commit(staged);
      await client.query('COMMIT');
      return true;
    } catch (err) {
      await client.query('ROLLBACK').catch((rollback: Error) => (broken = rollback));
      throw err;
    } finally {
      client.release(broken);
    }
  }

  /** Records the failure when no retry follows, then lets BullMQ retry or fail the job. */
  private async failed(job: Job<RenderQrPayload>, err: unknown): Promise<never> {
    const permanent = err instanceof LogoError && err.permanent;
    const last = permanent || job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
    const reason = err instanceof LogoError ? err.message : 'the image could not be rendered';
    if (!(err instanceof LogoError))
      this.logger.error(`qr ${job.data.qrId}: render failed: ${(err as Error).stack ?? err}`);
    if (last) {
      await this.db.query(
        `UPDATE qr_codes SET status = 'failed', error = $3, updated_at = now() WHERE id = $1 AND render_version = $2`,
        [job.data.qrId, job.data.version, reason],
      );
    }
    throw permanent ? new UnrecoverableError(reason) : err;
  }

  private async deleteImages(code: string): Promise<string> {
    // A code is never reused while its row exists; if one does exist again, its files are its own.
    const [row] = await this.db.query(`SELECT 1 FROM links WHERE alias = $1 AND kind = 'qr'`, [
      code,
    ]);
    if (row) return 'kept';
    await this.store.remove(code);
    return 'deleted';
  }
}
