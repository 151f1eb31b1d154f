import { InjectQueue } from '@nestjs/bullmq';
import { Injectable, Logger } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { Queue } from 'bullmq';

import { ServiceUnavailableError, UserDeletedEvent } from '@app/common';
import { DeleteQrImagesPayload, JOB, QrLook, QUEUE, RenderQrPayload } from '@app/queue';
import { RedisService } from '@app/redis';

import { QrResolver } from './qr-resolver';

/** How long the api waits for Redis to take a job before it answers 503. */
const ENQUEUE_TIMEOUT_MS = 3_000;
/** BullMQ's largest priority (lower runs first). */
const MAX_PRIORITY = 2_097_152;
/** A user's render count restarts after this long without a new render. */
const ORDINAL_TTL_SECONDS = 300;

/**
 * The QR jobs the api hands to the worker: render a code's images (one job id per render
 * version, so a repeat is a no-op), and delete them once the code is gone (with the code's cache
 * entries, here and on every replica).
 *
 * Renders are queued fairly between users: a render's priority is its rank among its owner's
 * recent renders (1 for a user's first, 10 000 for the 10 000th), and lower runs first, so one
 * user's batch of 10 000 codes does not delay another user's first code: it is next.
 */
@Injectable()
export class QrRenderQueue {
  private readonly logger = new Logger(QrRenderQueue.name);

  constructor(
    @InjectQueue(QUEUE.qr) private readonly queue: Queue,
    private readonly resolver: QrResolver,
    private readonly redis: RedisService,
  ) {}

  /** Queues a render of `userId`'s code; 503 when Redis does not take it in time. */
  async render(userId: number, qrId: number, version: number, look: QrLook): Promise<void> {
    const payload: RenderQrPayload = { qrId, version, look };
    try {
      const priority = await this.withTimeout(this.rank(userId));
      await this.withTimeout(
        this.queue.add(JOB.renderQr, payload, { jobId: `qr-${qrId}-v${version}`, priority }),
      );
    } catch (err) {
      this.logger.error(`qr ${qrId}: render job not queued: ${(err as Error).message}`);
      throw new ServiceUnavailableError();
    }
  }

  /**
   * After QR rows are deleted: drop the codes from the caches and queue the deletion of their
   * image files. The rows are gone, so the files are no longer served; a failed enqueue only
   * leaves files behind (logged).
   */
  async discard(codes: string[]): Promise<void> {
    if (!codes.length) return;
    await this.resolver.evict(...codes);
    const jobs = codes.map((code) => ({
      name: JOB.deleteQrImages,
      data: { code } satisfies DeleteQrImagesPayload,
      opts: { jobId: `qr-delete-${code}` },
    }));
    await this.withTimeout(this.queue.addBulk(jobs)).catch((err: Error) =>
      this.logger.warn(
        `image deletion of ${codes.length} code(s) not queued (${err.message}); their files stay on disk`,
      ),
    );
  }

  /** A deleted user's QR codes: out of the caches, their images removed. */
  @OnEvent(UserDeletedEvent.event, { promisify: true })
  async onUserDeleted(event: UserDeletedEvent): Promise<void> {
    await this.discard(event.codes.filter((c) => c.kind === 'qr').map((c) => c.alias));
  }

  /** This render's rank among the user's recent ones (its priority). */
  private async rank(userId: number): Promise<number> {
    const key = this.redis.key('qr', 'renders', userId);
    const [[err, n]] = (await this.redis.client
      .multi()
      .incr(key)
      .expire(key, ORDINAL_TTL_SECONDS)
      .exec()) as Array<[Error | null, number]>;
    if (err) throw err;
    return Math.min(Math.max(1, n), MAX_PRIORITY);
  }

  private withTimeout<T>(p: Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('queue timeout')), ENQUEUE_TIMEOUT_MS);
    });
    return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
  }
}
