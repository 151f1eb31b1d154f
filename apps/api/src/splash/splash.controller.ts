import { Body, Controller, Delete, Get, Post, Put, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';

import {
  ApiErrors,
  ApiOkData,
  ApiOkFields,
  ApiOkList,
  ApiOkMessage,
  Auth,
  IdParam,
  PageQueryDto,
  Principal,
} from '@app/common';

import { AddSplashDto } from './dto/add-splash.dto';
import { SplashCreatedView, SplashDetailsView, SplashView } from './dto/splash.view';
import { UpdateSplashDto } from './dto/update-splash.dto';
import { LinkPages } from '../link-pages/link-pages.service';
import { SPLASH_PAGES } from './splash-pages';

const PAGE_DOC =
  'A link of type splash first shows this page: the title, the image (linking to `link`), the message, ' +
  '`link` itself, a button with the text `button` that forwards to the link’s target, and a countdown that ' +
  'forwards by itself after `countdown` seconds (none at 0).';

@ApiTags('custom splash')
@ApiBearerAuth()
@Controller('api')
export class SplashController {
  constructor(private readonly pages: LinkPages) {}

  @Get('splash')
  @ApiOperation({ summary: "The caller's custom splash pages, newest first" })
  @ApiOkList('splash', SplashView)
  @ApiErrors(400, 403)
  list(@Auth() auth: Principal, @Query() query: PageQueryDto) {
    return this.pages.list(SPLASH_PAGES, auth, query);
  }

  @Get('splash/:id')
  @ApiOperation({ summary: 'One custom splash page with everything it shows: `{error, data}`' })
  @ApiOkData(SplashDetailsView)
  @ApiErrors(400, 403, 404)
  get(@Auth() auth: Principal, @IdParam('id') id: number) {
    return this.pages.get(SPLASH_PAGES, auth, id);
  }

  @Post('splash/add')
  @ApiOperation({
    summary: 'Add a custom splash page: `{error, id}`',
    description: `${PAGE_DOC} 403 past the plan's \`splash\` count or when the plan has splash pages disabled.`,
  })
  @ApiOkFields(SplashCreatedView)
  @ApiErrors(400, 403, 413)
  add(@Auth() auth: Principal, @Body() dto: AddSplashDto) {
    return this.pages.add(SPLASH_PAGES, auth, dto);
  }

  @Put('splash/:id/update')
  @ApiOperation({
    summary: 'Change a custom splash page: `{error, message}`',
    description: 'Only the fields sent change; links showing it show the change at once.',
  })
  @ApiOkMessage()
  @ApiErrors(400, 403, 404, 413)
  async update(@Auth() auth: Principal, @IdParam('id') id: number, @Body() dto: UpdateSplashDto) {
    await this.pages.update(SPLASH_PAGES, auth, id, dto);
    return { message: 'Splash page has been updated successfully.' };
  }

  @Delete('splash/:id/delete')
  @ApiOperation({
    summary: 'Delete a custom splash page: `{error, message}`',
    description: 'Links that used it become direct links.',
  })
  @ApiOkMessage()
  @ApiErrors(400, 403, 404)
  async remove(@Auth() auth: Principal, @IdParam('id') id: number) {
    await this.pages.remove(SPLASH_PAGES, auth, id);
    return { message: 'Splash page has been deleted successfully.' };
  }
}
