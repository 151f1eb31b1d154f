import { ApiProperty } from '@nestjs/swagger';

import { formatDateTime } from '@app/common';
import { Webhook, WEBHOOK_EVENTS, WebhookDelivery } from '@app/database';

/** A webhook list entry. The secret is shown once, when the webhook is added. */
export class WebhookView {
  @ApiProperty({ example: 1 })
  id: number;

  @ApiProperty({ example: 'https://hooks.example.com/short-links' })
  url: string;

  @ApiProperty({ type: [String], enum: WEBHOOK_EVENTS, example: ['link.created'] })
  events: string[];

  @ApiProperty({
    enum: ['active', 'disabled'],
    description:
      'disabled: by its owner (update active false) or by the service after a day of failed deliveries (see disabledReason); nothing is sent to a disabled webhook',
  })
  status: 'active' | 'disabled';

  @ApiProperty({ type: String, nullable: true, example: null })
  disabledReason: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    example: null,
    description:
      'When deliveries started failing (null while the last one succeeded); a day later the webhook is disabled',
  })
  failingSince: string | null;

  @ApiProperty({ example: '2024-11-21 10:00:00' })
  date: string;
}

export function webhookView(w: Webhook): WebhookView {
  return {
    id: w.id,
    url: w.url,
    events: w.events,
    status: w.disabledAt ? 'disabled' : 'active',
    disabledReason: w.disabledAt ? w.disabledReason : null,
    failingSince: formatDateTime(w.failingSince),
    date: formatDateTime(w.createdAt) as string,
  };
}

export class WebhookAddedView {
  @ApiProperty({ example: 1 })
  id: number;

  @ApiProperty({
    example: 'whsec_3c1f0b9d2a7e48f6b5c4d3e2f1a0b9c8',
    description: 'The signing secret (shown only here; keep it to verify X-Webhook-Signature)',
  })
  secret: string;
}

export class WebhookTestView {
  @ApiProperty({ example: 'A test delivery has been queued.' })
  message: string;

  @ApiProperty({ example: 42, description: 'The delivery id (see the deliveries list)' })
  delivery: number;
}

/** A delivery history entry. */
export class DeliveryView {
  @ApiProperty({ example: 42 })
  id: number;

  @ApiProperty({ example: 'link.created', description: 'an event name, or webhook.test' })
  event: string;

  @ApiProperty({
    enum: ['pending', 'delivered', 'failed'],
    description: 'pending: not sent yet or waiting for a retry',
  })
  status: string;

  @ApiProperty({ example: 1, description: 'requests made so far' })
  attempts: number;

  @ApiProperty({
    type: Number,
    nullable: true,
    example: 200,
    description: "the receiver's HTTP status of the last attempt (null: no answer)",
  })
  responseStatus: number | null;

  @ApiProperty({
    type: String,
    nullable: true,
    example: null,
    description: 'why the last attempt failed without an HTTP answer, or why nothing was sent',
  })
  message: string | null;

  @ApiProperty({ example: '2024-11-21 10:00:00', description: 'when the event happened' })
  date: string;
}

export function deliveryView(d: WebhookDelivery): DeliveryView {
  return {
    id: Number(d.id),
    event: d.event,
    status: d.status,
    attempts: d.attempts,
    responseStatus: d.responseStatus,
    message: d.error,
    date: formatDateTime(d.createdAt) as string,
  };
}
