import { Controller, Get, Param, Req, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { Request, Response } from 'express';

import {
  AdminOnly,
  ApiErrors,
  ApiOkFields,
  IdParam,
  Public,
  SESSION_COOKIE,
  SessionStore,
} from '@app/common';

import { LoginLinkResponse } from './dto/login-link.view';
import { LoginResponse } from './dto/login.view';
import { LoginLinksService } from './login-links.service';

@ApiTags('users')
@Controller()
export class LoginLinksController {
  constructor(
    private readonly links: LoginLinksService,
    private readonly sessions: SessionStore,
  ) {}

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
    description: `Single use, even under concurrent requests. Already used or past its hour: 410; unknown token: 404. Opened by a browser (\`Accept\` preferring \`text/html\`): signs the user in (the session cookie \`${SESSION_COOKIE}\` of \`POST /auth/session\`) and redirects (302) to \`/app\`, the dashboard; the key is not shown.`,
  })
  @ApiOkFields(LoginResponse)
  @ApiResponse({
    status: 302,
    description: 'A browser (Accept: text/html): signed in, on to the dashboard',
    headers: {
      Location: { description: '`/app`', schema: { type: 'string' } },
      'Set-Cookie': {
        description: `The session cookie \`${SESSION_COOKIE}\` (as \`POST /auth/session\` sets it)`,
        schema: { type: 'string' },
      },
    },
  })
  @ApiErrors(404, 410)
  async redeem(@Param('token') token: string, @Req() req: Request, @Res() res: Response) {
    const data = await this.links.redeem(token);
    if (req.accepts(['json', 'html']) !== 'html') {
      res.status(200).json({ error: 0, message: 'Login successful.', data });
      return;
    }
    const { token: session } = await this.sessions.create(data.id);
    res.setHeader('Set-Cookie', this.sessions.cookie(session));
    res.setHeader('Location', '/app');
    res.status(302).end();
  }
}
