import { IncomingMessage, Server, ServerResponse } from 'node:http';

import { INestApplicationContext, Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Logger as PinoLogger } from 'nestjs-pino';
import { Client } from 'pg';

import { STATUS_MESSAGES } from '@app/common';
import { AppConfig } from '@app/config';
import { isUnavailable } from '@app/database';

import { ApiApp, createApi } from '../bootstrap';
import { createFront, FrontHandlers } from '../http-front';
import { OutageVisits } from '../permanence/outage-visits';
import { PublicHandler } from '../public/public-handler';
import { StartingModule } from './starting.module';

/** How often Postgres is tried while the api waits for it. */
const RETRY_MS = 1000;
/** How long the starting side lives on after the swap, for the requests it was answering. */
const DRAIN_MS = 2000;

const LIVE = Buffer.from(JSON.stringify({ error: 0, message: 'ok' }));
const NOT_READY = Buffer.from(
  JSON.stringify({
    error: 1,
    message:
      'Postgres unreachable: the api is starting (short links are answered from the link snapshot)',
  }),
);
const UNAVAILABLE = Buffer.from(JSON.stringify({ error: 1, message: STATUS_MESSAGES[503] }));

/**
 * Whether Postgres takes a connection now: false only when it is unreachable (`isUnavailable`);
 * any other failure (a wrong password, a missing database) is for the api's own start to report.
 */
export async function postgresReachable(config: AppConfig): Promise<boolean> {
  const client = new Client({
    connectionString: config.DATABASE_URL,
    connectionTimeoutMillis: 2000,
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return true;
  } catch (err) {
    return !isUnavailable(err);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * Nest's side of the front while the api is starting: `GET /health` (liveness) 200, so an
 * orchestrator does not restart a process that serves short links; everything else (the API,
 * `/health/ready`, `/auth`, `/docs`) 503 `{error: 1, message}` with Retry-After.
 */
function startingNest(req: IncomingMessage, res: ServerResponse): void {
  const path = (req.url ?? '/').split('?', 1)[0];
  const [status, body] =
    path === '/health'
      ? [200, LIVE]
      : path === '/health/ready'
        ? [503, NOT_READY]
        : [503, UNAVAILABLE];
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': String(body.length),
    ...(status === 503 ? { 'Retry-After': '5' } : {}),
  });
  res.end(req.method === 'HEAD' ? undefined : body);
}

/**
 * An api process that starts while Postgres is unreachable (docs/link-permanence.md): the HTTP
 * front listens at once with the public side of StartingModule (short links and branded domains
 * from the link snapshot, visits held) and the API answering 503, while the full api is built
 * in the background as soon as Postgres takes connections. Then its handlers are swapped in on
 * the same listening server (no moment where connections are refused), the held visits are
 * handed to its OutageVisits, and the starting side is closed.
 */
export class StartingFront {
  private readonly logger = new Logger(StartingFront.name);
  readonly server: Server;
  private readonly handlers: FrontHandlers;
  private stopped = false;
  private closing?: Promise<void>;
  /** The full api, once built and swapped in. */
  built: ApiApp | null = null;

  private constructor(private readonly context: INestApplicationContext) {
    const config = context.get(AppConfig);
    this.handlers = { nest: startingNest, publicSide: context.get(PublicHandler) };
    this.server = createFront(config, this.handlers);
  }

  static async create(): Promise<StartingFront> {
    const context = await NestFactory.createApplicationContext(StartingModule, {
      bufferLogs: true,
    });
    context.useLogger(context.get(PinoLogger));
    context.flushLogs();
    return new StartingFront(context);
  }

  /**
   * Waits for Postgres, builds the full api on this front's server and swaps it in; tries again
   * (after RETRY_MS) when the build fails. Rejects once `stop` was called.
   */
  async build(): Promise<ApiApp> {
    const config = this.context.get(AppConfig);
    for (;;) {
      while (!this.stopped && !(await postgresReachable(config))) await sleep(RETRY_MS);
      if (this.stopped) throw new Error('stopped while starting');
      try {
        const api = await createApi({ server: this.server, abortOnError: false });
        if (this.stopped) {
          await api.app.close();
          throw new Error('stopped while starting');
        }
        this.swap(api);
        return api;
      } catch (err) {
        if (this.stopped) throw err;
        this.logger.warn(`api not built yet (${(err as Error).message}): trying again`);
        await sleep(RETRY_MS);
      }
    }
  }

  /** The full api takes the server's requests; the starting side closes once its own are done. */
  private swap(api: ApiApp): void {
    const visits = api.app.get(OutageVisits);
    const held = this.context.get(OutageVisits);
    Object.assign(this.handlers, api.handlers);
    this.built = api;
    visits.adopt(held.handOver());
    this.logger.log('api built: the API and short links are served by it');
    setTimeout(() => {
      visits.adopt(held.handOver());
      void this.close();
    }, DRAIN_MS).unref();
  }

  /** Ends the wait for Postgres (shutdown) and closes the starting side. */
  stop(): Promise<void> {
    this.stopped = true;
    return this.close();
  }

  private close(): Promise<void> {
    this.closing ??= this.context
      .close()
      .catch((err: Error) => this.logger.warn(`starting side not closed cleanly: ${err.message}`));
    return this.closing;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
