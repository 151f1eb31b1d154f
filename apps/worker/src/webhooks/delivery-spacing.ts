import { Injectable } from '@nestjs/common';
import { DelayedError, Job } from 'bullmq';

import { DeliverWebhookPayload } from '@app/queue';
import { RedisService } from '@app/redis';

/** The events that are batches of visits: at most one of them leaves per webhook per second. */
const VISIT_BATCH_EVENTS: ReadonlySet<string> = new Set(['link.clicked', 'qr.scanned']);
const SPACING_MS = 1000;

/**
 * Reserves the next free send slot of a webhook: the key holds the end of the last slot given
 * out (Redis time, ms), so concurrent callers on every worker get consecutive slots, each once.
 * Answers how long the caller waits for its slot (0: now).
 */
const RESERVE_SLOT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local free = tonumber(redis.call('GET', KEYS[1]) or '0')
local at = math.max(now, free)
local spacing = tonumber(ARGV[1])
redis.call('SET', KEYS[1], at + spacing, 'PX', at + spacing - now)
return at - now`;

/**
 * "At most one visit batch per webhook per second" (docs/webhooks-import.md#events-and-bodies),
 * held when a delivery is sent. The fold schedules batches a second apart (`not_before`), but a
 * worker that falls behind would send a late batch and the next one on time, closer than a
 * second. So a batch reserves the webhook's next one-second slot in Redis (shared by every
 * worker) before it is sent, and waits for it when it is not the current one.
 */
@Injectable()
export class DeliverySpacing {
  constructor(private readonly redis: RedisService) {}

  /**
   * Returns when the delivery may leave now; otherwise puts the job back in the queue until the
   * slot it reserved (not an attempt) and throws BullMQ's DelayedError, which ends this run.
   */
  async holdForSlot(
    job: Job<DeliverWebhookPayload>,
    token: string | undefined,
    webhookId: number,
    event: string,
  ): Promise<void> {
    if (job.data.slotAt !== undefined) {
      // its slot is now; a retry after a failure reserves a new one
      await job.updateData({ deliveryId: job.data.deliveryId });
      return;
    }
    const wait = await this.reserve(webhookId, event);
    if (wait <= 0) return;
    const slotAt = Date.now() + wait;
    await job.updateData({ ...job.data, slotAt });
    await job.moveToDelayed(slotAt, token);
    throw new DelayedError();
  }

  /** 0 when a delivery of `event` may leave now, else the milliseconds until its reserved slot. */
  private async reserve(webhookId: number, event: string): Promise<number> {
    if (!VISIT_BATCH_EVENTS.has(event)) return 0;
    const wait = await this.redis.client.eval(
      RESERVE_SLOT,
      1,
      this.redis.key('webhook', webhookId, 'visit-slot'),
      SPACING_MS,
    );
    return Number(wait);
  }
}
