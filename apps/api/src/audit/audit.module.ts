import { Module } from '@nestjs/common';

import { AuditController } from './audit.controller';
import { AuditService } from './audit.service';

/** The audit log's reading side: `GET /api/audit` (AuditLog in @app/common writes it). */
@Module({ controllers: [AuditController], providers: [AuditService] })
export class AuditModule {}
