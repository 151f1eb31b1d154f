import { Controller, Get, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';

import { ApiErrors, ApiOkList, Auth, PageQueryDto, Principal } from '@app/common';

import { SplashView } from './dto/splash.view';
import { SplashService } from './splash.service';

@ApiTags('custom splash')
@ApiBearerAuth()
@Controller('api')
export class SplashController {
  constructor(private readonly splash: SplashService) {}

  @Get('splash')
  @ApiOperation({
    summary: "The caller's custom splash pages, newest first",
    description: 'List only through this API.',
  })
  @ApiOkList('splash', SplashView)
  @ApiErrors(400, 403)
  list(@Auth() auth: Principal, @Query() query: PageQueryDto) {
    return this.splash.list(auth, query);
  }
}
