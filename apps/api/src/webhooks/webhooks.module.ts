import { Module } from '@nestjs/common';

import { WebhooksController } from './webhooks.controller';
import { WebhooksService } from './webhooks.service';

/**
 * Webhooks: /api/webhooks, /api/webhook/add|:id/update|:id/delete|:id/deliveries|:id/test. The
 * outbox (WebhookOutbox, WebhookDeliveries) is @app/webhooks' WebhooksLibModule: the features
 * whose changes are events (links, QR codes) write into it inside their own transactions.
 */
@Module({
  controllers: [WebhooksController],
  providers: [WebhooksService],
})
export class WebhooksModule {}
