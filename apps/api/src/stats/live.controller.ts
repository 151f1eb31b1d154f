import { Controller, Get, Req, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { Request, Response } from 'express';

import { ApiErrors, Auth, ForArea, IdParam, Principal } from '@app/common';

import { LiveStreams } from './live-streams';
import { StatsService } from './stats.service';

const LIVE = `Server-Sent Events (text/event-stream), kept open: one \`data:\` line per visit, a JSON object {date (UTC, YYYY-MM-DD HH:MM:SS), link (the short code's id), country, city (null while the statistics have no city), referrer, browser, os, device}, sent within about a second of the visit, on whichever api replica it was recorded. Only visits that count are sent (bots, link-preview fetchers, HEAD requests and visits past the plan's monthly clicks are left out); no address or visitor digest is ever sent. Visits made before the stream opened are not replayed. A comment line (\`: heartbeat\`) comes every LIVE_HEARTBEAT_MS (default 15 s) without visits. The stream ends with \`event: end\` (data {reason}) when its API key is revoked or expires, its session ends, or the caller loses access to the workspace (checked every second). At most LIVE_STREAMS_PER_KEY streams (default 5) per API key or session over every replica: past it, 429. With EventSource (the dashboard, same-origin cookie) or any HTTP client reading the body as it comes.`;

const EVENT_STREAM = ApiResponse({
  status: 200,
  description: 'text/event-stream: `data: {…}` per visit, `: heartbeat` comments, `event: end`',
  content: {
    'text/event-stream': {
      schema: {
        type: 'string',
        example:
          'retry: 5000\n: connected\n\ndata: {"date":"2026-11-28 10:00:00","link":42,"country":"France","city":null,"referrer":"t.co","browser":"Chrome","os":"Windows","device":"desktop"}\n\n: heartbeat\n\n',
      },
    },
  },
});

@ApiTags('statistics')
@ApiBearerAuth()
@ForArea('stats')
@Controller('api')
export class LiveController {
  constructor(
    private readonly streams: LiveStreams,
    private readonly stats: StatsService,
  ) {}

  @Get('url/:id/live')
  @ApiOperation({ summary: 'A short link’s visits, live (Server-Sent Events)', description: LIVE })
  @EVENT_STREAM
  @ApiErrors(404, 429)
  async link(
    @Auth() auth: Principal,
    @IdParam('id') id: number,
    @Req() req: Request,
    @Res() res: Response,
  ) {
    const linkId = await this.stats.linkId(auth, id);
    return this.streams.stream(auth, linkId, req, res);
  }

  @Get('stats/live')
  @ApiOperation({
    summary: 'Every visit of your workspace, live (Server-Sent Events)',
    description: `Every short code of the workspace (links, QR codes, bio pages). ${LIVE}`,
  })
  @EVENT_STREAM
  @ApiErrors(429)
  account(@Auth() auth: Principal, @Req() req: Request, @Res() res: Response) {
    return this.streams.stream(auth, null, req, res);
  }
}
