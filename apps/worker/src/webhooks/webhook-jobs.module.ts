import { Module } from '@nestjs/common';

import { PublicUrls } from '@app/common';
import { FOLD_LISTENER } from '@app/stats';

import { DeliveryGate } from './delivery-gate';
import { DeliverySpacing } from './delivery-spacing';
import { VisitEvents } from './visit-events';
import { WebhookRelay } from './webhook-relay';
import { WebhookSender } from './webhook-sender';
import { WebhookProcessor } from './webhook.processor';

/**
 * Webhook jobs of the worker: the outbox relay, the delivery processor, and the fold listener
 * that turns folded visits into link.clicked / qr.scanned events.
 */
@Module({
  providers: [
    WebhookRelay,
    WebhookProcessor,
    WebhookSender,
    DeliverySpacing,
    DeliveryGate,
    PublicUrls,
    VisitEvents,
    { provide: FOLD_LISTENER, useExisting: VisitEvents },
  ],
  exports: [FOLD_LISTENER],
})
export class WebhookJobsModule {}
