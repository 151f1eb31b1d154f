import { Module } from '@nestjs/common';

import { LinksModule } from '../links/links.module';
import { ImportProcessor } from './import.processor';
import { ImportsController } from './imports.controller';
import { ImportsService } from './imports.service';
import { LinkImportRunner } from './link-import-runner';

/** Imports: POST /api/import, GET /api/import/:id, and the job that creates the links. */
@Module({
  imports: [LinksModule],
  controllers: [ImportsController],
  providers: [ImportsService, LinkImportRunner, ImportProcessor],
})
export class ImportsModule {}
