import { JobsOptions } from 'bullmq';

/** Queue names: the api produces, the worker consumes. */
export const QUEUE = {
  qr: 'qr-render',
  stats: 'stats-fold',
  webhooks: 'webhooks',
  imports: 'link-imports',
  health: 'link-health',
} as const;

/** Job names within the queues. */
export const JOB = {
  renderQr: 'render-qr',
  deleteQrImages: 'delete-qr-images',
  foldStats: 'fold-stats',
  deliverWebhook: 'deliver-webhook',
  importLinks: 'import-links',
  probeLinks: 'probe-links',
} as const;

export interface DeliverWebhookPayload {
  /** webhook_deliveries.id: the row holds the event, the worker reads it (and its webhook) */
  deliveryId: number;
  /** A visit batch waiting for the send slot it reserved (ms since epoch); set by the worker. */
  slotAt?: number;
}

export interface ImportLinksPayload {
  importId: number;
}

/**
 * Webhook deliveries: one job per delivery row (jobId `whd-<id>`, so the relay may hand a row over
 * twice), retried for about a day. The custom backoff (WEBHOOK_BACKOFF) waits 2 s, 4 s, 8 s, …
 * up to 4 h between attempts: the first three attempts fall within 6 s, the 19th about 24 h
 * after the first. Jobs are kept a day after they end, so a row handed over again meanwhile is
 * not sent twice.
 */
export const WEBHOOK_JOB_OPTIONS: JobsOptions = {
  attempts: 19,
  backoff: { type: 'webhook' },
  removeOnComplete: { age: 24 * 3600, count: 100_000 },
  removeOnFail: { age: 24 * 3600, count: 100_000 },
};

/** Delay before retry `attemptsMade + 1` of a webhook delivery. */
export function webhookBackoff(attemptsMade: number): number {
  return Math.min(2000 * 2 ** Math.max(0, attemptsMade - 1), 4 * 3600 * 1000);
}

/** An import runs once: its rows are idempotent, but a failed run is reported, not retried. */
export const IMPORT_JOB_OPTIONS: JobsOptions = {
  attempts: 1,
  removeOnComplete: { count: 1000, age: 24 * 3600 },
  removeOnFail: { count: 1000, age: 7 * 24 * 3600 },
};

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
