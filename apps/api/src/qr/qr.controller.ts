import { Body, Controller, Delete, Get, Post, Put, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiExtraModels, ApiOperation, ApiTags } from '@nestjs/swagger';

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

import { CREATE_QR_VARIANTS, CreateQrDto } from './dto/create-qr.dto';
import { QrCreatedView, QrItemView, QrReadView } from './dto/qr-views';
import { UpdateQrDto } from './dto/update-qr.dto';
import { QrService } from './qr.service';

@ApiTags('qr')
@ApiBearerAuth()
@ForArea('qr')
@Controller('api')
export class QrController {
  constructor(private readonly qr: QrService) {}

  @ListRoute('qr', 'qrs', QrItemView, {
    summary:
      'List QR codes, newest first (collection key `qrs`); `scans` counts visits of the short link',
  })
  list(@Auth() auth: Principal, @Query() query: PageQueryDto) {
    return this.qr.list(auth, query);
  }

  @Get('qr/:id')
  @ApiOperation({
    summary: 'One QR code: `{error, details, data}`',
    description:
      '`details` is the QR code with its type, canonical data, colours, logo, `image` (the PNG URL; also .svg) and ' +
      'rendering `status` (pending | ready | failed, with `reason` when failed); `data` is its scan statistics.',
  })
  @ApiOkFields(QrReadView)
  @ApiErrors(400, 403, 404)
  get(@Auth() auth: Principal, @IdParam('id') id: number) {
    return this.qr.get(auth, id);
  }

  @Post('qr/add')
  @ApiOperation({
    summary: 'Create a QR code: `{error, id, link}`',
    description:
      'Answers at once: the image (PNG and SVG of the short link `link`) is rendered by the worker; follow `status` ' +
      'on GET /api/qr/:id. The short link <PUBLIC_URL>/q/<code> forwards (link, email, phone, sms), downloads a ' +
      "vCard (vcard) or shows a page (text, wifi), and counts the scan. A QR code of type link counts towards the plan's `links` limit; the other types do not.",
  })
  @ApiExtraModels(...CREATE_QR_VARIANTS.models)
  @ApiBody({ required: true, schema: CREATE_QR_VARIANTS.schema })
  @ApiOkFields(QrCreatedView)
  @ApiErrors(400, 403, 503)
  create(@Auth() auth: Principal, @Body() dto: CreateQrDto) {
    return this.qr.create(auth, dto);
  }

  @MessageRoute(
    Put('qr/:id/update'),
    {
      summary: "Change a QR code's content (and look): `{error, message}`",
      description:
        'The image encodes the short link, so new `data` takes effect without reprinting. Sending `background`, ' +
        '`foreground` or `logo` re-renders the image (status back to pending; the previous image is served until the ' +
        'new one is ready); so does any update after a failed rendering. `type` cannot be changed (400).',
    },
    [400, 403, 404, 503],
  )
  async update(@Auth() auth: Principal, @IdParam('id') id: number, @Body() dto: UpdateQrDto) {
    await this.qr.update(auth, id, dto);
    return { message: 'QR code has been updated successfully.' };
  }

  @MessageRoute(Delete('qr/:id/delete'), {
    summary: 'Delete a QR code, its short link and its images: `{error, message}`',
  })
  async remove(@Auth() auth: Principal, @IdParam('id') id: number) {
    await this.qr.remove(auth, id);
    return { message: 'QR code has been deleted successfully.' };
  }
}
