import { Body, Controller, Delete, Get, Post, Req, Res } from '@nestjs/common';
import { ApiExtraModels, ApiOperation, ApiResponse, ApiTags, getSchemaPath } from '@nestjs/swagger';
import { Request, Response } from 'express';

import {
  ApiErrors,
  ApiOkMessage,
  AppError,
  ClientAddress,
  Public,
  SESSION_COOKIE,
  sessionToken,
  SessionStore,
} from '@app/common';

import { SessionView } from './dto/session.view';
import { SignInDto } from './dto/sign-in.dto';
import { SessionsService } from './sessions.service';

const SET_COOKIE = {
  'Set-Cookie': {
    description: `The session cookie \`${SESSION_COOKIE}\`: HttpOnly, SameSite=Lax, Path=/, Secure when PUBLIC_URL is https; Max-Age SESSION_DAYS`,
    schema: { type: 'string' },
  },
};

/** 200 `{error: 0, data: SessionView}` with the cookie. */
const OK_SESSION = ApiResponse({
  status: 200,
  headers: SET_COOKIE,
  schema: {
    type: 'object',
    properties: {
      error: { type: 'integer', enum: [0], example: 0 },
      data: { $ref: getSchemaPath(SessionView) },
    },
    required: ['error', 'data'],
    additionalProperties: false,
  },
});

const ERROR_SCHEMA = { $ref: '#/components/schemas/ErrorResponse' };

/** A failure of these routes, in their own words (ApiErrors speaks of API keys). */
const failure = (status: number, description: string) =>
  ApiResponse({ status, description, schema: ERROR_SCHEMA });

/**
 * Sign-in for people (the dashboard): a session in Redis behind an HttpOnly cookie
 * (SessionStore). Public routes in Nest's terms: they read and write the cookie themselves.
 */
@ApiTags('sessions')
@ApiExtraModels(SessionView)
@Public()
@Controller('auth/session')
export class SessionsController {
  constructor(
    private readonly sessions: SessionsService,
    private readonly store: SessionStore,
    private readonly clients: ClientAddress,
  ) {}

  @Post()
  @ApiOperation({
    summary:
      'Sign in with e-mail and password: {error, data: {id, email, username, admin, csrf}} and a session cookie',
    description: `Sets the session cookie \`${SESSION_COOKIE}\`, which /api accepts instead of a key (without an Authorization header); every /api request but GET, HEAD and OPTIONS then carries \`X-CSRF-Token: <csrf>\`. The session lasts SESSION_DAYS (default 14) since its last use, and ends at once when the password changes or the user is deleted. A wrong e-mail and a wrong password get the same 401. More than 10 failures per account or per client address within 15 minutes: 429 with Retry-After until the window ends (even for the right password). The body must be sent as \`application/json\` (415 otherwise).`,
  })
  @OK_SESSION
  @ApiErrors(400)
  @failure(401, '`Wrong e-mail or password` (one message for both)')
  @failure(415, 'A body not sent as `application/json`, or not in UTF-8')
  @ApiResponse({
    status: 429,
    description: 'Too many failed sign-ins for this account or client address (see Retry-After)',
    schema: ERROR_SCHEMA,
    headers: {
      'Retry-After': {
        description: 'Seconds until the window ends',
        required: true,
        schema: { type: 'integer', minimum: 1 },
      },
    },
  })
  async signIn(
    @Body() dto: SignInDto,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ) {
    // a cross-site form can post text/plain, never application/json (that needs a preflight,
    // which /auth never grants): no sign-in CSRF
    if (!/^application\/json\s*(;|$)/i.test(req.headers['content-type'] ?? ''))
      throw new AppError(415, 'Content-Type must be application/json');
    const { token, data } = await this.sessions.signIn(
      dto.email,
      dto.password,
      this.clients.of(req),
    );
    res.setHeader('Set-Cookie', this.store.cookie(token));
    return { data };
  }

  @Get()
  @ApiOperation({
    summary:
      'The signed-in user and the session’s CSRF token: {error, data: {id, email, username, admin, csrf}}',
    description: `Reads the session cookie \`${SESSION_COOKIE}\` and sends it again with a fresh Max-Age. 401 without a live session (the cookie is then removed).`,
  })
  @OK_SESSION
  @failure(401, 'Not signed in: no session cookie, or its session ended or expired')
  async current(@Req() req: Request, @Res({ passthrough: true }) res: Response) {
    const token = sessionToken(req.headers.cookie);
    try {
      const data = await this.sessions.current(token);
      res.setHeader('Set-Cookie', this.store.cookie(token as string));
      return { data };
    } catch (err) {
      if (req.headers.cookie !== undefined) res.setHeader('Set-Cookie', this.store.clearedCookie());
      throw err;
    }
  }

  @Delete()
  @ApiOperation({
    summary: 'Sign out: {error, message}',
    description: `Ends the session of the cookie \`${SESSION_COOKIE}\` on every api replica and removes the cookie. Answers 200 without a session too.`,
  })
  @ApiOkMessage()
  @ApiResponse({
    status: 200,
    headers: {
      'Set-Cookie': {
        description: `Removes the cookie \`${SESSION_COOKIE}\` (Max-Age=0)`,
        schema: { type: 'string' },
      },
    },
  })
  async signOut(@Req() req: Request, @Res({ passthrough: true }) res: Response) {
    await this.sessions.end(sessionToken(req.headers.cookie));
    res.setHeader('Set-Cookie', this.store.clearedCookie());
    return { message: 'Signed out.' };
  }
}
