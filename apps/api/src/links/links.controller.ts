import { Body, Controller, Delete, Get, Post, Put, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';

import {
  ApiErrors,
  ApiOkFields,
  Auth,
  ForArea,
  IdParam,
  ListRoute,
  MessageRoute,
  Principal,
} from '@app/common';

import { BulkLinksDto } from './dto/bulk-links.dto';
import { CreateLinkDto } from './dto/create-link.dto';
import {
  BulkLinksView,
  LinkCreatedView,
  LinkItemView,
  LinkReadView,
  LinkUpdatedView,
} from './dto/link.view';
import { ListLinksDto } from './dto/list-links.dto';
import { UpdateLinkDto } from './dto/update-link.dto';
import { LinkHealthView } from './dto/link-health.view';
import { LinkHealthReader } from './link-health-reader';
import { LinksService } from './links.service';

const OPTIONS = `Link options: a visitor goes to the first of these that applies: the deep link of their platform
(deeplink: iOS → apple, Android → google), the first device rule matching their user agent (devicetarget), the rule
of their country (geotarget, from their address), the rule of the first of their Accept-Language languages that has
one (languagetarget), else url. parameters are set on every http(s) destination; forwardquery adds the visitor's
query string. Link-preview fetchers get a page with the metatitle / metadescription / metaimage tags. After
clicklimit counted visits, or after expiry, the link answers the 410 page, or redirects to expirationredirect.`;

const SHORT_LINKS = `Short links live at <PUBLIC_URL>/<alias> (or <branded domain>/<alias>): a 302 to the target with
Cache-Control: private, max-age=90; 410 page once expired; a password form first when protected; a short page
that fires the pixels, shows the splash page, or frames the target (frame, overlay) before forwarding.`;

@ApiTags('links')
@ApiBearerAuth()
@ForArea('links')
@Controller('api')
export class LinksController {
  constructor(
    private readonly links: LinksService,
    private readonly health: LinkHealthReader,
  ) {}

  @Post('url/add')
  @ApiOperation({
    summary: 'Shorten a URL: {error, id, shorturl}',
    description: `${SHORT_LINKS}\n\n${OPTIONS}\n\nAll or nothing: a rejected field creates nothing. 403 when the plan's "links" count is reached or a feature used (alias, splash, overlay, pixels, geo, device, parameters) is disabled; 404 for a pixel, campaign, channel or overlay id that is not yours; 409 when the custom alias is taken.`,
  })
  @ApiOkFields(LinkCreatedView)
  @ApiErrors(400, 403, 404, 409)
  create(@Auth() auth: Principal, @Body() dto: CreateLinkDto) {
    return this.links.create(auth, dto);
  }

  @Post('url/bulk')
  @ApiOperation({
    summary:
      'Shorten up to 100 URLs at once: {error, data: [{id, shorturl} | {error: 1, message}]}',
    description:
      'Plan feature "multiple" (403 for the whole request otherwise). Each item is a url/add body, validated and created on its own, in order, with the same rules (plan "links" count included): a refused item is reported in its place and does not stop the others.',
  })
  @ApiOkFields(BulkLinksView)
  @ApiErrors(400, 403)
  bulk(@Auth() auth: Principal, @Body() dto: BulkLinksDto) {
    return this.links.bulk(auth, dto);
  }

  @ListRoute(
    'urls',
    'urls',
    LinkItemView,
    {
      summary: 'Your short links (list, key urls)',
      description:
        'Newest first, or with order=click most clicked first (click totals as folded into Postgres by the worker every few seconds). q searches the target URL, title and alias (case-insensitive, literally: % and _ match themselves); short is an exact alias. result is exact, with or without q and short. Each list or search runs within a time budget (LIST_QUERY_MS, default 2 s: past it 503 saying the search did not finish within its budget; a keyword without three letters or digits in a row is not indexed and may reach it for a user with hundreds of thousands of links) and a share of the connections: at most LIST_QUERIES_PER_USER (default 2) of one user at once, past it 429 with Retry-After.',
    },
    [400],
  )
  list(@Auth() auth: Principal, @Query() query: ListLinksDto) {
    return this.links.list(auth, query);
  }

  @Get('url/:id')
  @ApiOperation({ summary: 'One short link with its statistics: {error, id, details, data}' })
  @ApiOkFields(LinkReadView)
  @ApiErrors(400, 404)
  get(@Auth() auth: Principal, @IdParam('id') id: number) {
    return this.links.get(auth, id);
  }

  @Get('url/:id/health')
  @ApiOperation({
    summary:
      "A short link's destination health: {error, data: {status, checked, httpstatus, error, since, history}}",
    description:
      "The worker probes the targets of links visited in the last 30 days every HEALTH_CHECK_SECONDS (HEAD, then GET when HEAD gets an error status; redirects followed, at most 5; the webhooks' address rules), at most one probe per host per HEALTH_HOST_SECONDS. After HEALTH_FAIL_THRESHOLD failed probes in a row the link is broken and serves its fallbackurl (if set) instead of its url, until 2 good probes in a row; the webhooks link.broken and link.recovered tell each crossing, link.drifted a target whose redirects now end on another registrable domain. A failed probe: no answer in time, a refused address, or an answer of 404, 410, another 4xx but 401, 403, 407 and 429, or 5xx. The envelope's error is 0; data.error is why the last probe failed (null when it was good). history: the last 20 probes, newest first, each {date, httpstatus, error, ms}.",
  })
  @ApiOkFields(LinkHealthView)
  @ApiErrors(400, 404)
  healthOf(@Auth() auth: Principal, @IdParam('id') id: number) {
    return this.health.get(auth, id);
  }

  @Put('url/:id/update')
  @ApiOperation({
    summary: 'Change a short link: {error, id, short, shorturl}',
    description:
      'Only the fields sent change. password "" removes the password, expiry null the expiry, domain null the branded domain, campaign null the campaign, null any link option; pixels and the targeting lists replace the whole list; channel adds the link to one more channel. Visitors see the change at once on every api instance.',
  })
  @ApiOkFields(LinkUpdatedView)
  @ApiErrors(400, 403, 404, 409)
  update(@Auth() auth: Principal, @IdParam('id') id: number, @Body() dto: UpdateLinkDto) {
    return this.links.update(auth, id, dto);
  }

  @MessageRoute(
    Delete('url/:id/delete'),
    { summary: 'Delete a short link (and its channel assignments): {error, message}' },
    [400, 404],
  )
  async remove(@Auth() auth: Principal, @IdParam('id') id: number) {
    await this.links.remove(auth, id);
    return { message: 'Link has been deleted successfully.' };
  }
}
