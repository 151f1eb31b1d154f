import { Controller, Get, Param } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';

import { AdminOnly, ApiErrors, ApiOkFields, IdParam, Public } from '@app/common';

import { LoginLinkResponse } from './dto/login-link.view';
import { LoginResponse } from './dto/login.view';
import { LoginLinksService } from './login-links.service';

@ApiTags('users')
@Controller()
export class LoginLinksController {
  constructor(private readonly links: LoginLinksService) {}

  @Get('api/user/login/:id')
  @AdminOnly()
  @ApiBearerAuth()
  @ApiOperation({
    summary: 'Create a one-time login link for a user (admin): {error, url}',
    description:
      '`url` = `<PUBLIC_URL>/auth/login/<token>`: valid 1 hour, usable once. Only a digest of the token is stored.',
  })
  @ApiOkFields(LoginLinkResponse)
  @ApiErrors(400, 403, 404)
  async issue(@IdParam('id') id: number) {
    return { url: await this.links.issue(id) };
  }

  @Get('auth/login/:token')
  @Public()
  @ApiOperation({
    summary: 'Use a login link (no API key): {error, message, data: {id, email, username, apikey}}',
    description:
      'Single use, even under concurrent requests. Already used or past its hour: 410; unknown token: 404.',
  })
  @ApiOkFields(LoginResponse)
  @ApiErrors(404, 410)
  async redeem(@Param('token') token: string) {
    return { message: 'Login successful.', data: await this.links.redeem(token) };
  }
}
