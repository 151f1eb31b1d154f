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
  PageQueryDto,
  Principal,
} from '@app/common';

import { BioService } from './bio.service';
import { AddBioDto } from './dto/add-bio.dto';
import { BioReadView, BioSavedView, BioView } from './dto/bio.view';
import { UpdateBioDto } from './dto/update-bio.dto';

const PAGE_DOC =
  'The page at <PUBLIC_URL or its branded domain>/<alias> is a small HTML page (light or dark theme, one ' +
  'column readable on a phone): the avatar, the title (the name when untitled), the description, one button ' +
  'per link and a row of social links. Every visit of the page and every visit through one of its buttons or ' +
  'social links is counted in the page’s statistics. A button to one of your own short links is left out while ' +
  'that link is private.';

@ApiTags('bio pages')
@ApiBearerAuth()
@ForArea('bio')
@Controller('api')
export class BioController {
  constructor(private readonly bio: BioService) {}

  @ListRoute('bio', 'bios', BioView, {
    summary: "The caller's bio pages, newest first (collection key `bios`)",
  })
  list(@Auth() auth: Principal, @Query() query: PageQueryDto) {
    return this.bio.list(auth, query);
  }

  @Get('bio/:id')
  @ApiOperation({
    summary: 'One bio page: `{error, id, details, data}`',
    description: '`details` is the page, `data` its statistics (as `GET /api/url/:id`).',
  })
  @ApiOkFields(BioReadView)
  @ApiErrors(400, 403, 404)
  get(@Auth() auth: Principal, @IdParam('id') id: number) {
    return this.bio.get(auth, id);
  }

  @Post('bio/add')
  @ApiOperation({
    summary: 'Create a bio page: `{error, id, url}`',
    description: `${PAGE_DOC} A bio page counts towards the plan's \`links\` limit (403 past it).`,
  })
  @ApiOkFields(BioSavedView)
  @ApiErrors(400, 403, 409, 413)
  create(@Auth() auth: Principal, @Body() dto: AddBioDto) {
    return this.bio.create(auth, dto);
  }

  @Put('bio/:id/update')
  @ApiOperation({
    summary: 'Change a bio page: `{error, id, url}`',
    description:
      'Only the fields sent change; `links` and `socials` replace the whole list. The page changes at once on every replica.',
  })
  @ApiOkFields(BioSavedView)
  @ApiErrors(400, 403, 404, 409, 413)
  update(@Auth() auth: Principal, @IdParam('id') id: number, @Body() dto: UpdateBioDto) {
    return this.bio.update(auth, id, dto);
  }

  @MessageRoute(Delete('bio/:id/delete'), {
    summary: 'Delete a bio page: `{error, message}`',
    description: 'Its address stops answering at once; it leaves the channels it was in.',
  })
  async remove(@Auth() auth: Principal, @IdParam('id') id: number) {
    await this.bio.remove(auth, id);
    return { message: 'Bio page has been deleted successfully.' };
  }
}
