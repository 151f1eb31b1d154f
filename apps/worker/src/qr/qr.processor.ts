import { availableParallelism } from 'node:os';

import { Processor, WorkerHost } from '@nestjs/bullmq';
import { Logger, OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Job, UnrecoverableError } from 'bullmq';
import { DataSource } from 'typeorm';

import { AppConfig } from '@app/config';
import { parseRgb, Rgb } from '@app/qr';
import { DeleteQrImagesPayload, JOB, QUEUE, RenderQrPayload } from '@app/queue';

import { LogoError } from './logo-error';
import { LogoLoader } from './logo-loader';
import { QrImageStore } from './qr-image-store';
import { QrRenderer } from './qr-renderer';

interface QrRow {
  id: number;
  code: string;
  background: string;
  foreground: string;
  logo: string | null;
  render_version: number;
}

/** QR_CONCURRENCY, or one render per core when it is 0. */
export function qrConcurrency(config: AppConfig): number {
  return config.QR_CONCURRENCY > 0 ? config.QR_CONCURRENCY : availableParallelism();
}

/**
 * Renders QR images and deletes them. A render lands only for the row's current render_version:
 * the files are renamed into place and the row marked ready while the row is locked, so an older
 * job finishing late can neither overwrite a newer image nor mark it ready, and a render racing a
 * delete leaves no files behind. After the last attempt (or at once for a permanent failure, such
 * as a refused logo) the row is marked failed with the reason.
 */
@Processor(QUEUE.qr, { concurrency: availableParallelism() })
export class QrProcessor extends WorkerHost implements OnApplicationBootstrap {
  private readonly logger = new Logger(QrProcessor.name);

  constructor(
    private readonly config: AppConfig,
    @InjectDataSource() private readonly db: DataSource,
    private readonly renderer: QrRenderer,
    private readonly logos: LogoLoader,
    private readonly store: QrImageStore,
  ) {
    super();
  }

  onApplicationBootstrap(): void {
    this.worker.concurrency = qrConcurrency(this.config);
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
    const { qrId, version } = job.data;
    const [row] = (await this.db.query(
      `SELECT q.id, l.alias AS code, q.background, q.foreground, q.logo, q.render_version
         FROM qr_codes q JOIN links l ON l.id = q.link_id WHERE q.id = $1`,
      [qrId],
    )) as QrRow[];
    if (!row) return 'gone';
    if (row.render_version !== version) return 'stale';
    try {
      const logo = row.logo ? await this.logos.load(row.logo) : null;
      const { png, svg } = await this.renderer.render({
        text: `${this.config.publicUrl}/q/${row.code}`,
        background: parseRgb(row.background) as Rgb,
        foreground: parseRgb(row.foreground) as Rgb,
        logo,
      });
      const staged = await this.store.stage(row.code, { png, svg });
      const landed = await this.db
        .transaction(async (m) => {
          const [current] = await m.query(`SELECT render_version FROM qr_codes WHERE id = $1 FOR UPDATE`, [qrId]);
          if (!current || current.render_version !== version) return false;
          await this.store.commit(staged);
          await m.query(`UPDATE qr_codes SET status = 'ready', error = NULL, updated_at = now() WHERE id = $1 AND render_version = $2`, [
            qrId,
            version,
          ]);
          return true;
        })
        .finally(() => this.store.discard(staged));
      return landed ? 'ready' : 'stale';
    } catch (err) {
      return this.failed(job, err);
    }
  }

  /** Records the failure when no retry follows, then lets BullMQ retry or fail the job. */
  private async failed(job: Job<RenderQrPayload>, err: unknown): Promise<never> {
    const permanent = err instanceof LogoError && err.permanent;
    const last = permanent || job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
    const reason = err instanceof LogoError ? err.message : 'the image could not be rendered';
    if (!(err instanceof LogoError)) this.logger.error(`qr ${job.data.qrId}: render failed: ${(err as Error).stack ?? err}`);
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
    const [row] = await this.db.query(`SELECT 1 FROM links WHERE alias = $1 AND kind = 'qr'`, [code]);
    if (row) return 'kept';
    await this.store.remove(code);
    return 'deleted';
  }
}
