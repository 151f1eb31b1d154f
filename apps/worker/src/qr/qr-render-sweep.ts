import { InjectQueue } from '@nestjs/bullmq';
import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Queue } from 'bullmq';
import { DataSource } from 'typeorm';

import { JOB, QUEUE, RenderQrPayload } from '@app/queue';

import { QrImageStore } from './qr-image-store';

const EVERY_MS = 60_000;
/** A code pending this long may have lost its job (an api that died between commit and enqueue). */
const PENDING_FOR = '2 minutes';
const BATCH = 500;
/** Temporary image files older than this were abandoned by a dead worker. */
const TEMP_MAX_AGE_MS = 10 * 60_000;

/**
 * Safety net for renders that never happen: every minute, codes still pending after two minutes
 * whose job is missing (an api that died between commit and enqueue) get it, and jobs that gave
 * up without being able to mark the row failed (database down) are retried. Job ids are
 * `qr-<id>-v<version>` and versions only grow, so a job still queued or running is left alone,
 * and workers sweeping at the same time add each job once. Temporary image files abandoned by a
 * worker that died mid-write are removed once they are ten minutes old.
 */
@Injectable()
export class QrRenderSweep implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(QrRenderSweep.name);
  private timer?: NodeJS.Timeout;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @InjectQueue(QUEUE.qr) private readonly queue: Queue,
    private readonly images: QrImageStore,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => {
      this.sweep().catch((err: Error) => this.logger.warn(`render sweep failed: ${err.message}`));
      this.images
        .removeStaleTemporaries(TEMP_MAX_AGE_MS)
        .then((n) => n && this.logger.warn(`removed ${n} abandoned temporary image file(s)`))
        .catch((err: Error) => this.logger.warn(`temporary file cleanup failed: ${err.message}`));
    }, EVERY_MS);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  /** Queues (or retries) the render of codes pending longer than `olderThan` (a Postgres interval); returns how many. */
  async sweep(olderThan = PENDING_FOR): Promise<number> {
    const rows: Array<{ id: number; render_version: number }> = await this.db.query(
      `SELECT id, render_version FROM qr_codes
        WHERE status = 'pending' AND updated_at < now() - $1::interval
        ORDER BY id LIMIT ${BATCH}`,
      [olderThan],
    );
    let queued = 0;
    for (const row of rows) {
      const jobId = `qr-${row.id}-v${row.render_version}`;
      const job = await this.queue.getJob(jobId);
      if (!job) {
        const payload: RenderQrPayload = { qrId: row.id, version: row.render_version };
        await this.queue.add(JOB.renderQr, payload, { jobId });
        queued += 1;
      } else if (await job.isFailed()) {
        // gave up while the row could not even be marked failed (database down): try again
        await job.retry('failed');
        queued += 1;
      }
    }
    if (queued) this.logger.warn(`render sweep: queued ${queued} pending QR code(s) again`);
    return queued;
  }
}
