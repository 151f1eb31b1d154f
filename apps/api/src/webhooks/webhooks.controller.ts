import { Body, Controller, Delete, Post, Put, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';

import {
  ApiErrors,
  ApiOkFields,
  Auth,
  ForArea,
  IdParam,
  ListRoute,
  MessageRoute,
  PageQueryDto,
  Principal,
} from '@app/common';

import { AddWebhookDto } from './dto/add-webhook.dto';
import { UpdateWebhookDto } from './dto/update-webhook.dto';
import { DeliveryView, WebhookAddedView, WebhookTestView, WebhookView } from './dto/webhook.view';
import { WebhooksService } from './webhooks.service';

const DELIVERY = `A delivery is POST <url> with the JSON body {id, event, created, data} and the headers
X-Webhook-Id (the body's id: the same on every attempt, so receivers can drop duplicates), X-Webhook-Event,
X-Webhook-Timestamp (Unix seconds of this attempt) and X-Webhook-Signature: sha256=<hex HMAC-SHA256 of
"<timestamp>.<body>" keyed with the secret>. Receivers should check the signature and that the timestamp is
recent. A 2xx answer within 5 s ends it; anything else (redirects are not followed) is retried with
exponential backoff (2 s, 4 s, 8 s, … up to 4 h) for about a day. A webhook whose deliveries keep failing for
a day is disabled (its list entry says so; update with active true re-enables it). Events are sent after
the change is committed, at least once. data: link.created / link.updated {id, alias, shorturl, longurl, title,
description, domain, date}; link.deleted {id, alias, shorturl}; link.flagged {id, alias, shorturl, longurl,
target, source, type, date} (a target of the link flagged by a threat feed or the online lookup after it was
made: target is the flagged URL, source the feed's name or safe-browsing; once per link until an admin allows
it); qr.created {id, name, type, link, date};
member.added / member.removed {id, userid, email, username, role, date} (the member's GET /api/team entry);
link.clicked {id, alias, shorturl, visits}; qr.scanned {id, link, visits}, where visits holds up to 100
visits of that link [{date, country, referrer, browser, os, device, language}] (date: the visit's UTC day;
device: mobile, tablet, desktop or other; language: ISO 639-1 or Unknown; never an address), at most one
delivery per webhook per second, bots never included. Destination health (GET /api/url/:id/health), once per
crossing: link.broken / link.recovered {id, alias, shorturl, longurl, fallbackurl, httpstatus, error, since};
link.drifted {id, alias, shorturl, longurl, domain, finaldomain, finalurl} when a good probe's redirects end on
another registrable domain (Public Suffix List) than the one recorded at the first good probe of the url.`;

@ApiTags('webhooks')
@ApiBearerAuth()
@ForArea('webhooks')
@Controller('api')
export class WebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  @ListRoute(
    'webhooks',
    'webhooks',
    WebhookView,
    { summary: 'Your webhooks (list, key webhooks)', description: DELIVERY },
    [400],
  )
  list(@Auth() auth: Principal, @Query() query: PageQueryDto) {
    return this.webhooks.list(auth, query);
  }

  @Post('webhook/add')
  @ApiOperation({
    summary: 'Add a webhook: {error, id, secret}',
    description: `At most 20 per user (403). ${DELIVERY}`,
  })
  @ApiOkFields(WebhookAddedView)
  @ApiErrors(400, 403)
  add(@Auth() auth: Principal, @Body() dto: AddWebhookDto) {
    return this.webhooks.add(auth, dto);
  }

  @Put('webhook/:id/update')
  @ApiOperation({
    summary: 'Change a webhook: {error, id, url, events, status, …} (its list entry)',
    description: 'Only the fields sent change.',
  })
  @ApiOkFields(WebhookView)
  @ApiErrors(400, 404)
  update(@Auth() auth: Principal, @IdParam('id') id: number, @Body() dto: UpdateWebhookDto) {
    return this.webhooks.update(auth, id, dto);
  }

  @MessageRoute(
    Delete('webhook/:id/delete'),
    { summary: 'Delete a webhook and its delivery history: {error, message}' },
    [400, 404],
  )
  async remove(@Auth() auth: Principal, @IdParam('id') id: number) {
    await this.webhooks.remove(auth, id);
    return { message: 'Webhook has been deleted successfully.' };
  }

  @ListRoute(
    'webhook/:id/deliveries',
    'deliveries',
    DeliveryView,
    {
      summary: "A webhook's deliveries (list, key deliveries)",
      description: 'The newest 100 are kept (and every delivery still pending).',
    },
    [400, 404],
  )
  deliveries(@Auth() auth: Principal, @IdParam('id') id: number, @Query() query: PageQueryDto) {
    return this.webhooks.deliveryList(auth, id, query);
  }

  @Post('webhook/:id/test')
  @ApiOperation({
    summary: 'Send a test event: {error, message, delivery}',
    description:
      'Queues a delivery of the event webhook.test with data {webhook, message}, signed and sent like any other. 403 when the webhook is disabled; at most once per 10 s per webhook (429 with Retry-After).',
  })
  @ApiOkFields(WebhookTestView)
  @ApiErrors(400, 403, 404, 429)
  test(@Auth() auth: Principal, @IdParam('id') id: number) {
    return this.webhooks.test(auth, id);
  }
}
