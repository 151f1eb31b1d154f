import { Body, Controller, Get, Post, Query } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiExtraModels,
  ApiOperation,
  ApiTags,
  getSchemaPath,
} from '@nestjs/swagger';

import {
  ApiBodyPerType,
  ApiErrors,
  ApiOkData,
  ApiOkFields,
  Auth,
  ForArea,
  IdParam,
  Principal,
} from '@app/common';

import { ImportLinksDto } from './dto/import-links.dto';
import { ImportQueryDto } from './dto/import-query.dto';
import { ImportStartedView, ImportView } from './dto/import.view';
import { ImportsService } from './imports.service';
import { CsvUpload, Upload } from './upload.decorator';

const IMPORT = `Imports links from a file of this service or of another: a CSV body (Content-Type: text/csv,
up to 20 MB, a header row naming the columns) or a JSON body {links: [...]} (or {csv: "<the CSV text>"}, up to 1 MB). source names the layout: csv (url, alias,
title, description, domain, expiry), bitly (long_url, link / custom_bitlinks, title), shlink (longUrl, shortUrl or
shortCode, title, domain), yourls (keyword, url, title), kutt (target, address, description, domain, expire_in).
Column names are matched ignoring case, spaces, "_" and "-"; other columns are ignored. Answers {error, id} at once;
a worker job creates the links (one import per user at a time, in the order sent: a later one stays queued; imports of
different users run side by side): each row by the rules of url/add (URL checks and blocklist, alias rules, your branded
domains, expiry in the future, the plan's "alias" feature and "links" count). A row whose alias you have already (or,
without an alias, whose URL one of your links has) is skipped, so importing a file twice creates nothing new; an
alias of another user is an error of that row. Reaching the plan's links count stops the import. At most 5 imports of a
user may wait or run at once: past it, 429 with Retry-After.`;

@ApiExtraModels(ImportLinksDto)
@ApiTags('import')
@ApiBearerAuth()
@ForArea('import')
@Controller('api')
export class ImportsController {
  constructor(private readonly imports: ImportsService) {}

  @Post('import')
  @ApiOperation({ summary: 'Import links: {error, id}', description: IMPORT })
  @ApiBodyPerType(
    'A CSV file (text/csv), or JSON: {links: [...]} or the CSV text as {csv: "..."} (application/json)',
    {
      'text/csv': {
        type: 'string',
        example: 'url,alias,title\nhttps://example.com/a,spring,Spring sale\n',
      },
      'application/json': { $ref: getSchemaPath(ImportLinksDto) },
    },
  )
  @ApiOkFields(ImportStartedView)
  @ApiErrors(400, 413, 429)
  start(
    @Auth() auth: Principal,
    @Query() query: ImportQueryDto,
    @Body() dto: ImportLinksDto,
    @CsvUpload() upload: Upload,
  ) {
    return this.imports.start(auth, query.source ?? 'csv', dto, upload);
  }

  @Get('import/:id')
  @ApiOperation({
    summary:
      "An import's progress: {error, data: {id, status, total, created, skipped, failed, errors, …}}",
    description:
      'total, created, skipped and failed grow while the import runs (status running); errors lists the first 100 refused rows with their line.',
  })
  @ApiOkData(ImportView)
  @ApiErrors(400, 404)
  get(@Auth() auth: Principal, @IdParam('id') id: number) {
    return this.imports.get(auth, id);
  }
}
