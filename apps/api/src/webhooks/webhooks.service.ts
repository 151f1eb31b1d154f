import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';

import {
  assertSendsAField,
  AuditLog,
  fieldsOf,
  encryptSecret,
  ForbiddenError,
  InvalidFieldError,
  NotFoundError,
  PageQueryDto,
  paginateOwn,
  Paginated,
  PlanService,
  Principal,
  randomString,
  TooManyRequestsError,
} from '@app/common';
import { AppConfig } from '@app/config';
import { Webhook } from '@app/database';
import { RedisService } from '@app/redis';
import { WebhookDeliveries, webhookUrlProblem } from '@app/webhooks';

import { AddWebhookDto } from './dto/add-webhook.dto';
import { UpdateWebhookDto } from './dto/update-webhook.dto';
import {
  DeliveryView,
  deliveryView,
  WebhookAddedView,
  WebhookTestView,
  WebhookView,
  webhookView,
} from './dto/webhook.view';

/** Webhooks one user may have. */
export const MAX_WEBHOOKS = 20;
/** `POST /api/webhook/:id/test` at most once per this many seconds per webhook. */
export const TEST_INTERVAL_SECONDS = 10;

/**
 * A user's webhooks and their delivery history. Events reach the outbox through WebhookOutbox
 * (in the transactions of the links and QR services, and of the worker's visit fold); the worker
 * relays, signs and sends them.
 */
@Injectable()
export class WebhooksService {
  constructor(
    @InjectRepository(Webhook) private readonly webhooks: Repository<Webhook>,
    private readonly deliveries: WebhookDeliveries,
    private readonly config: AppConfig,
    private readonly plans: PlanService,
    private readonly redis: RedisService,
    private readonly audit: AuditLog,
  ) {}

  list(auth: Principal, query: PageQueryDto): Promise<Paginated<WebhookView>> {
    return paginateOwn(this.webhooks, auth.user.id, query, 'webhooks', webhookView);
  }

  async add(auth: Principal, dto: AddWebhookDto): Promise<WebhookAddedView> {
    this.checkUrl(dto.url);
    const secret = dto.secret ?? `whsec_${randomString(32)}`;
    // counted under the user's lock: concurrent adds cannot pass the limit together
    const saved = await this.plans.createCounted(
      auth,
      { what: 'webhooks', max: MAX_WEBHOOKS },
      Webhook,
      {
        url: dto.url,
        events: [...new Set(dto.events)],
        secretEnc: encryptSecret(secret, this.config.secret),
      },
      // field names only: `secret` when the client chose one, never its value
      this.audit.created(auth, 'webhook', fieldsOf(dto)),
    );
    return { id: saved.id, secret };
  }

  async update(auth: Principal, id: number, dto: UpdateWebhookDto): Promise<WebhookView> {
    assertSendsAField(dto);
    const webhook = await this.find(auth, id);
    const changes: Partial<Webhook> = {};
    if (dto.url !== undefined) {
      this.checkUrl(dto.url);
      changes.url = dto.url;
    }
    if (dto.events !== undefined) changes.events = [...new Set(dto.events)];
    if (dto.secret !== undefined) changes.secretEnc = encryptSecret(dto.secret, this.config.secret);
    if (dto.active === true) {
      Object.assign(changes, { disabledAt: null, disabledReason: null, failingSince: null });
    } else if (dto.active === false && !webhook.disabledAt) {
      Object.assign(changes, { disabledAt: new Date(), disabledReason: 'disabled by its owner' });
    }
    const audited = {
      action: 'webhook.update',
      resource: { type: 'webhook', id },
      changes: fieldsOf(dto),
    };
    await this.audit.change(auth, audited, async (em) => {
      const result = await em.update(Webhook, { id, userId: auth.user.id }, changes);
      if (!result.affected) throw new NotFoundError('Webhook');
    });
    return webhookView(await this.find(auth, id));
  }

  async remove(auth: Principal, id: number): Promise<void> {
    const audited = { action: 'webhook.delete', resource: { type: 'webhook', id } };
    await this.audit.change(auth, audited, async (em) => {
      const result = await em.delete(Webhook, { id, userId: auth.user.id });
      if (!result.affected) throw new NotFoundError('Webhook');
    });
  }

  async deliveryList(
    auth: Principal,
    id: number,
    query: PageQueryDto,
  ): Promise<Paginated<DeliveryView>> {
    await this.find(auth, id);
    return this.deliveries.page(id, query, 'deliveries', deliveryView);
  }

  /**
   * Queues a `webhook.test` delivery, sent like any event (a disabled webhook: 403), at most once
   * per TEST_INTERVAL_SECONDS per webhook (429 with Retry-After), so that test deliveries cannot
   * flood a receiver, nor the queue.
   */
  async test(auth: Principal, id: number): Promise<WebhookTestView> {
    const webhook = await this.find(auth, id);
    if (webhook.disabledAt)
      throw new ForbiddenError('This webhook is disabled: re-enable it with active true first');
    await this.takeTestTurn(id);
    const delivery = await this.deliveries.insertTest(id, {
      webhook: id,
      message: 'A test delivery: your receiver is reachable and verifies signatures.',
    });
    return { message: 'A test delivery has been queued.', delivery };
  }

  /** The webhook's test turn (SET NX with expiry), or a 429 saying when the next one is. */
  private async takeTestTurn(id: number): Promise<void> {
    const key = this.redis.key('webhook', id, 'test-turn');
    const taken = await this.redis.client.set(key, '1', 'PX', TEST_INTERVAL_SECONDS * 1000, 'NX');
    if (taken === 'OK') return;
    const left = await this.redis.client.pttl(key);
    const retryAfter = Math.max(1, Math.ceil(left / 1000));
    throw new TooManyRequestsError(
      `A test delivery of this webhook was queued less than ${TEST_INTERVAL_SECONDS} s ago: retry in ${retryAfter} s`,
      retryAfter,
    );
  }

  private async find(auth: Principal, id: number): Promise<Webhook> {
    const webhook = await this.webhooks.findOneBy({ id, userId: auth.user.id });
    if (!webhook) throw new NotFoundError('Webhook');
    return webhook;
  }

  private checkUrl(url: string): void {
    const problem = webhookUrlProblem(url, this.config.WEBHOOK_ALLOW_HOSTS);
    if (problem) throw new InvalidFieldError('url', problem);
  }
}
