import { Body, Controller, Delete, Post, Put, Query } from '@nestjs/common';
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

import { AddPixelDto } from './dto/add-pixel.dto';
import { PixelCreatedView } from './dto/pixel-created.view';
import { PixelView } from './dto/pixel.view';
import { UpdatePixelDto } from './dto/update-pixel.dto';
import { PixelsService } from './pixels.service';

@ApiTags('pixels')
@ApiBearerAuth()
@ForArea('pixels')
@Controller('api')
export class PixelsController {
  constructor(private readonly pixels: PixelsService) {}

  @ListRoute('pixels', 'pixels', PixelView, {
    summary: "The caller's tracking pixels, newest first",
  })
  list(@Auth() auth: Principal, @Query() query: PageQueryDto) {
    return this.pixels.list(auth, query);
  }

  @Post('pixel/add')
  @ApiOperation({
    summary: 'Add a tracking pixel',
    description: "403 past the plan's `pixels` count or when the plan has pixels disabled.",
  })
  @ApiOkFields(PixelCreatedView)
  @ApiErrors(400, 403)
  add(@Auth() auth: Principal, @Body() dto: AddPixelDto) {
    return this.pixels.add(auth, dto);
  }

  @MessageRoute(Put('pixel/:id/update'), {
    summary: 'Update a pixel',
    description: '`tag` required, `name` optional; the type cannot change.',
  })
  async update(@Auth() auth: Principal, @IdParam('id') id: number, @Body() dto: UpdatePixelDto) {
    await this.pixels.update(auth, id, dto);
    return { message: 'Pixel has been updated successfully.' };
  }

  @MessageRoute(Delete('pixel/:id/delete'), {
    summary: 'Delete a pixel',
    description: 'Links that used it stop firing it.',
  })
  async remove(@Auth() auth: Principal, @IdParam('id') id: number) {
    await this.pixels.remove(auth, id);
    return { message: 'Pixel has been deleted successfully.' };
  }
}
