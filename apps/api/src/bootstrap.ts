import { Server } from 'node:http';

import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { Logger } from 'nestjs-pino';

import {
  ApiHttpAdapter,
  compileTrust,
  corsDelegate,
  finishOpenApiDocument,
  RouteIndex,
  RouteRules,
  WriterMark,
} from '@app/common';
import { AppConfig } from '@app/config';

import { AppModule } from './app.module';
import { createFront, FrontHandlers } from './http-front';
import { PublicHandler } from './public/public-handler';

export interface ApiApp {
  app: NestExpressApplication;
  /** The HTTP server: public short-link paths to the lean PublicHandler, the rest to Nest. */
  server: Server;
  /** What `server` hands requests to (for a server given in the options: to be swapped in). */
  handlers: FrontHandlers;
}

export interface ApiOptions {
  logger?: boolean;
  /**
   * An HTTP front already listening (the starting front, apps/api/src/starting): returned as
   * `server`, its handlers left as they are; the caller swaps `handlers` in.
   */
  server?: Server;
  /** Nest's default aborts the process when a module fails to start (Postgres unreachable). */
  abortOnError?: boolean;
}

const API_DESCRIPTION = `Link Management Service API, version 3.

Every request carries \`Authorization: Bearer <API_KEY>\` (or \`Token <API_KEY>\`), or, from the dashboard, the session
cookie of \`POST /auth/session\` (then \`X-CSRF-Token\` on every method but GET, HEAD and OPTIONS). Success bodies carry \`error: 0\`
(lists: the string \`"0"\`); failures are \`{error: 1, message}\` with a real HTTP status
(400 invalid field, 401 key, 403 admin / plan / role / scope, 404 unknown or foreign id, 405 a
method the path does not have, with \`Allow\`, 409 duplicate, 410 expired, 413 body over 1 MB, 429 rate limit,
503 dependency down). Lists take \`limit\` (default 15, max 100) and \`page\` (default 1),
newest first; \`nextpage\` is 0 on the last page.
Every /api response carries X-RateLimit-Limit, X-RateLimit-Remaining and X-RateLimit-Reset
(Unix epoch seconds); past 3000 requests per 60 s per key: 429 with Retry-After.
Date-times are UTC \`YYYY-MM-DD HH:MM:SS\`.
A member of another user's workspace acts in it with \`X-Workspace: <id>\`; what each operation
needs (\`x-needs\`: a role, a named key's scope) is in its description and in the security scheme.`;

/** Builds the api exactly as production runs it; used by main.ts, the e2e tests and the benchmarks. */
export async function createApi(options: ApiOptions = {}): Promise<ApiApp> {
  // the envelope and the writer mark where Nest replies (no global interceptor: ApiHttpAdapter)
  const adapter = new ApiHttpAdapter();
  const app = await NestFactory.create<NestExpressApplication>(AppModule, adapter, {
    bodyParser: false,
    bufferLogs: true,
    abortOnError: options.abortOnError,
    logger: options.logger === false ? false : undefined,
  });
  adapter.useWriterMark(app.get(WriterMark));
  if (options.logger !== false) app.useLogger(app.get(Logger));
  const config = app.get(AppConfig);
  // Express's req.ip (request logs) believes the same proxies as ClientAddress
  app.set('trust proxy', compileTrust(config.TRUST_PROXY));
  app.disable('x-powered-by');
  app.set('etag', false);
  // before every Nest middleware: a preflight is answered here, ahead of the rate limit and the key
  app.enableCors(corsDelegate(config));

  const doc = finishOpenApiDocument(
    SwaggerModule.createDocument(
      app,
      new DocumentBuilder()
        .setTitle('Link Management Service API')
        .setDescription(API_DESCRIPTION)
        .setVersion('3')
        .setLicense('MIT', 'https://opensource.org/licenses/MIT')
        .build(),
    ),
    config.publicUrl,
    app.get(RouteRules).operationNeeds(),
  );
  SwaggerModule.setup('docs', app, doc, { jsonDocumentUrl: 'docs-json' });
  // a request no route matches is told the routes of its path (405 with Allow) and the one it meant
  app.get(RouteIndex).load(doc.paths);

  await app.init();
  // Nest flushes the log buffer in app.listen(), which never runs here (the HTTP front below
  // listens): flush it now, so start-up lines are written and later lines go straight out.
  app.flushLogs();
  const handlers: FrontHandlers = {
    nest: app.getHttpAdapter().getInstance(),
    publicSide: app.get(PublicHandler),
  };
  const server = options.server ?? createFront(config, handlers);
  return { app, server, handlers };
}
