import { Controller, Get, Query, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { Response } from 'express';

import { ApiErrors, ApiOkData, Auth, ForArea, IdParam, Principal } from '@app/common';

import { StatsQueryDto } from './dto/stats-query.dto';
import { AccountStatsView, RangeStatsView } from './dto/stats.view';
import { StatsExportService } from './stats-export.service';
import { StatsService } from './stats.service';

const RANGE = `from / to are UTC days (YYYY-MM-DD, both included; default the last 30 days); interval is day (default), week (Monday to Sunday), month, or hour (ranges of at most 7 days, default the last 7; hours older than 8 days are not kept: from is raised; each point labelled YYYY-MM-DDTHH:00:00Z with uniqueClicks null). series holds every period of the range, zero-filled, and its clicks add up to clicks. uniqueClicks (of the range and of each period) counts distinct visitors over it: the union of the days' HyperLogLog sketches (standard error 0.81 %), so a visitor who came on several days counts once. Days older than the plan's retention are not returned: from is raised (notice says so). Visits show up as soon as they are recorded (folded totals plus the deltas not yet folded). 400 naming the field for a bad from, to or interval, from after to, a range over 400 days, or over 7 days with interval=hour (naming interval). The top maps include cities, regions, UTM sources, mediums and campaigns, referrer URLs and device models.`;

const CSV_EXPORT = `Plan feature "export" (403 otherwise). text/csv; charset=utf-8, sent as an attachment and streamed (the server holds a batch of rows at a time, whatever the number of rows). Cells starting with =, +, -, @, tab or carriage return are prefixed with ' so that spreadsheets do not run them as formulas. Counts are what the worker has folded into Postgres (every few seconds). At most EXPORTS_PER_USER exports of a user (default 2, over every replica) and EXPORT_CONNECTIONS per api process (default 3) run at once: past either, 429 with Retry-After. An export whose client reads nothing for EXPORT_STALL_SECONDS (default 30) is cut off.`;

const CSV_RESPONSE = (example: string) =>
  ApiResponse({
    status: 200,
    description: 'CSV (header row first)',
    headers: {
      'Content-Disposition': {
        description: 'attachment; filename="…"',
        schema: { type: 'string' },
      },
    },
    content: { 'text/csv': { schema: { type: 'string', example } } },
  });

@ApiTags('statistics')
@ApiBearerAuth()
@ForArea('stats')
@Controller('api')
export class StatsController {
  constructor(
    private readonly stats: StatsService,
    private readonly exports: StatsExportService,
  ) {}

  @Get('url/:id/stats')
  @ApiOperation({
    summary: 'A short link’s statistics over a date range: {error, data}',
    description: RANGE,
  })
  @ApiOkData(RangeStatsView)
  @ApiErrors(400, 404)
  link(@Auth() auth: Principal, @IdParam('id') id: number, @Query() query: StatsQueryDto) {
    return this.stats.link(auth, id, query);
  }

  @Get('qr/:id/stats')
  @ApiOperation({
    summary: 'A QR code’s scan statistics over a date range: {error, data}',
    description: `The statistics of the QR code's short link (its scans). ${RANGE}`,
  })
  @ApiOkData(RangeStatsView)
  @ApiErrors(400, 404)
  qr(@Auth() auth: Principal, @IdParam('id') id: number, @Query() query: StatsQueryDto) {
    return this.stats.qr(auth, id, query);
  }

  @Get('stats')
  @ApiOperation({
    summary: 'Your whole account’s statistics over a date range, with topLinks: {error, data}',
    description: `Every short code you own (links, QR codes, bio pages) together; uniqueClicks counts a visitor of several of them once. topLinks: your short links with the most visits over the range. ${RANGE}`,
  })
  @ApiOkData(AccountStatsView)
  @ApiErrors(400)
  account(@Auth() auth: Principal, @Query() query: StatsQueryDto) {
    return this.stats.account(auth, query);
  }

  @Get('urls/export')
  @ApiOperation({
    summary: 'All your short links as CSV',
    description: `Columns: id, alias, shorturl, longurl, title, domain (branded host, or empty), campaign (id, or empty), clicks, uniqueClicks (lifetime, as in GET /api/urls), date (creation, UTC). Newest first. ${CSV_EXPORT}`,
  })
  @CSV_RESPONSE(
    'id,alias,shorturl,longurl,title,domain,campaign,clicks,uniqueClicks,date\n42,promo,https://short.example/promo,https://example.com/,Promo,,,17,12,2026-11-02 10:00:00\n',
  )
  @ApiErrors(403, 429)
  exportLinks(@Auth() auth: Principal, @Res() res: Response) {
    return this.exports.links(auth, res);
  }

  @Get('url/:id/stats/export')
  @ApiOperation({
    summary: 'A short link’s daily statistics as CSV',
    description: `One row per day and dimension value over the range: date (YYYY-MM-DD), dimension (country, referrer, browser, os, social, device, language), value, clicks; by day, then dimension, most clicks first. from / to as for GET /api/url/:id/stats (interval does not apply). ${CSV_EXPORT}`,
  })
  @CSV_RESPONSE(
    'date,dimension,value,clicks\n2026-11-02,browser,Chrome,12\n2026-11-02,country,France,9\n',
  )
  @ApiErrors(400, 403, 404, 429)
  exportLinkStats(
    @Auth() auth: Principal,
    @IdParam('id') id: number,
    @Query() query: StatsQueryDto,
    @Res() res: Response,
  ) {
    return this.exports.linkStats(auth, id, query, res);
  }
}
