import { Global, Module } from '@nestjs/common';

import { WebhookDeliveries } from './webhook-deliveries';
import { WebhookOutbox } from './webhook-outbox';

/**
 * The webhook outbox for both apps: WebhookOutbox (events written in the transactions of the
 * changes they report: links, QR codes, imports) and WebhookDeliveries (every statement on
 * `webhook_deliveries`: the api's delivery history and test deliveries, the worker's relay,
 * sender and visit events). Global, like the other infrastructure libs: imported once by each
 * app's root module.
 */
@Global()
@Module({
  providers: [WebhookOutbox, WebhookDeliveries],
  exports: [WebhookOutbox, WebhookDeliveries],
})
export class WebhooksLibModule {}
