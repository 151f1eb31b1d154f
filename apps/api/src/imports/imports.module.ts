import { Module } from '@nestjs/common';

import { ImportsController } from './imports.controller';
import { ImportsService } from './imports.service';

/**
 * Imports: POST /api/import (the file is stored, the job queued) and GET /api/import/:id. The
 * worker's job creates the links (apps/worker/src/imports).
 */
@Module({
  controllers: [ImportsController],
  providers: [ImportsService],
})
export class ImportsModule {}
