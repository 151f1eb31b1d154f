import { Body, Controller, HttpCode, Post, Put, Query, Req } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { Request } from 'express';

import {
  AdminOnly,
  ApiErrors,
  ApiOkFields,
  Auth,
  ClientAddress,
  IdParam,
  InvalidFieldError,
  ListRoute,
  MessageRoute,
  Principal,
  Public,
  TooManyRequestsError,
} from '@app/common';

import {
  CreatedReportResponse,
  CreateReportDto,
  ListReportsDto,
  ResolveReportDto,
} from './dto/report.dto';
import { ReportView } from './dto/report.view';
import { checkReport, REPORT_WINDOW_SECONDS, REPORTS_PER_WINDOW } from './report-rules';
import { ReportsService } from './reports.service';

const ERROR_SCHEMA = { $ref: '#/components/schemas/ErrorResponse' };

export const TOO_MANY_REPORTS = `Too many reports from this address: at most ${REPORTS_PER_WINDOW} an hour`;

@ApiTags('reports')
@Public()
@Controller('api/report')
export class ReportsController {
  constructor(
    private readonly reports: ReportsService,
    private readonly clients: ClientAddress,
  ) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Report a short link for abuse (no API key): {error, id}',
    description:
      '`url` must be a short link of this service (`<PUBLIC_URL>/<alias>` or a verified branded domain); `reason` one of ' +
      "phishing, malware, spam, illegal, other. The report goes to the admins' queue; the e-mail is shown to them " +
      `only. At most ${REPORTS_PER_WINDOW} reports (accepted or refused) per client address and hour: 429 with ` +
      'Retry-After. The page `/report` sends the same report from a plain HTML form.',
  })
  @ApiOkFields(CreatedReportResponse)
  @ApiErrors(400)
  @ApiResponse({
    status: 429,
    description: 'Too many reports from this client address (see Retry-After)',
    schema: ERROR_SCHEMA,
    headers: {
      'Retry-After': {
        description: 'Seconds until the window ends',
        required: true,
        schema: { type: 'integer', minimum: 1 },
      },
    },
  })
  async create(@Body() dto: CreateReportDto, @Req() req: Request) {
    const address = this.clients.of(req);
    const wait = await this.reports.limit(address);
    if (wait !== null) throw new TooManyRequestsError(TOO_MANY_REPORTS, wait);
    const checked = checkReport({ ...dto });
    if (!checked.ok)
      throw new InvalidFieldError(checked.field, checked.message.slice(checked.field.length + 2));
    return { id: await this.reports.create(checked.value, address) };
  }
}

@ApiTags('admin')
@ApiBearerAuth()
@AdminOnly()
@Controller('api/admin')
export class ReportsAdminController {
  constructor(private readonly reports: ReportsService) {}

  @ListRoute('reports', 'reports', ReportView, {
    summary: 'Abuse reports, newest first (admin; list, key reports)',
    description:
      '`status`: open, dismissed or disabled (default: all). Each report with its link (alias, short URL, target, ' +
      "owner id, taken down or not), the reporter's e-mail (admins only), and the number of reports of that link " +
      `(all, open). Reports per client address: ${REPORTS_PER_WINDOW} every ${REPORT_WINDOW_SECONDS / 60} minutes.`,
  })
  list(@Query() query: ListReportsDto) {
    return this.reports.list(query);
  }

  @MessageRoute(
    Put('report/:id/resolve'),
    {
      summary: 'Resolve an abuse report (admin): dismiss it, or disable the link',
      description:
        '`disable` takes the link down as `PUT /api/admin/url/:id/disable` does (it answers 451 on every api ' +
        'instance). Every other open report of the same link is resolved the same way at once. One audit entry ' +
        '(`report.dismiss` / `report.disable`) per report resolved. A report already resolved: 409.',
    },
    [400, 403, 404, 409],
  )
  async resolve(@Auth() auth: Principal, @IdParam('id') id: number, @Body() dto: ResolveReportDto) {
    const n = await this.reports.resolve(auth, id, dto.action);
    const what = dto.action === 'disable' ? 'Link disabled' : 'Report dismissed';
    return { message: `${what}; ${n} report${n === 1 ? '' : 's'} resolved.` };
  }
}
