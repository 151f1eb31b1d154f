import { JobsOptions } from 'bullmq';

/** Queue names: the api produces, the worker consumes. */
export const QUEUE = {
  qr: 'qr-render',
  stats: 'stats-fold',
} as const;

/** Job names within the queues. */
export const JOB = {
  renderQr: 'render-qr',
  deleteQrImages: 'delete-qr-images',
  foldStats: 'fold-stats',
} as const;

export interface RenderQrPayload {
  qrId: number;
  /** The row's render_version when the job was enqueued; stale jobs are dropped. */
  version: number;
  /**
   * What that version renders, as the row held it: the worker then needs no read before
   * rendering (the version check when the image lands makes a copy safe). Without it (jobs of
   * the render sweep, or of an earlier version) the worker reads the row.
   */
  look?: QrLook;
}

/** The inputs of a QR image besides its short link's host. */
export interface QrLook {
  /** the short code: the image encodes `<PUBLIC_URL>/q/<code>` */
  code: string;
  background: string;
  foreground: string;
  logo: string | null;
}

export interface DeleteQrImagesPayload {
  /** The short code whose image files are removed. */
  code: string;
}

/** Defaults for every job: retried with backoff, finished jobs trimmed. */
export const DEFAULT_JOB_OPTIONS: JobsOptions = {
  attempts: 5,
  backoff: { type: 'exponential', delay: 1000 },
  removeOnComplete: { count: 1000, age: 3600 },
  removeOnFail: { count: 5000, age: 7 * 24 * 3600 },
};

/**
 * Worker options shared by every processor. A job's lock is renewed every lockDuration / 2 while
 * it runs; when a worker dies (SIGKILL, OOM) its jobs are reclaimed by the stalled check once the
 * lock lapses: with these values within ~15 s instead of BullMQ's default ~60 s.
 */
export const WORKER_OPTIONS = {
  lockDuration: 10_000,
  stalledInterval: 5_000,
  maxStalledCount: 3,
} as const;
