import { Global, Module } from '@nestjs/common';

import { WebhookOutbox } from '@app/webhooks';

import { WebhooksController } from './webhooks.controller';
import { WebhooksService } from './webhooks.service';

/**
 * Webhooks: /api/webhooks, /api/webhook/add|:id/update|:id/delete|:id/deliveries|:id/test. The
 * outbox writer is global: the features whose changes are events (links, QR codes) write into
 * it inside their own transactions.
 */
@Global()
@Module({
  controllers: [WebhooksController],
  providers: [WebhooksService, WebhookOutbox],
  exports: [WebhookOutbox],
})
export class WebhooksModule {}
