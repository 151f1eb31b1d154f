import { Controller, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';

import { Auth, ForArea, ListRoute, Principal } from '@app/common';

import { AuditService } from './audit.service';
import { AuditEntryView } from './dto/audit-entry.view';
import { ListAuditDto } from './dto/list-audit.dto';

@ApiTags('audit')
@ApiBearerAuth()
@ForArea('audit')
@Controller('api')
export class AuditController {
  constructor(private readonly audit: AuditService) {}

  @ListRoute('audit', 'entries', AuditEntryView, {
    summary: "The workspace's audit log, newest first (list, key entries)",
    description:
      'One entry per successful change in the workspace: who (actor, named key), what (`action`, `resource`) and ' +
      "which fields (names only, never values). Kept for the plan's `retention` days (0: forever). Filters: " +
      '`from`, `to` (a day or a date-time, UTC, both included), `action` (exact, or `<type>.*`), `actor` (user id). ' +
      'Owner and admins (scope audit:read).',
  })
  list(@Auth() auth: Principal, @Query() query: ListAuditDto) {
    return this.audit.list(auth, query);
  }
}
