import { IncomingMessage, ServerResponse } from 'node:http';

import { Params } from 'nestjs-pino';
import { pino } from 'pino';
import { Options } from 'pino-http';

import { AppConfig } from '@app/config';

/** Strips secrets from a URL before it is logged: login-link tokens and key-like query values. */
export function redactUrl(url: string | undefined): string {
  return (url ?? '')
    .replace(/(\/auth\/login\/)[^/?#]+/, '$1[redacted]')
    .replace(/([?&](?:key|api_key|apikey|token|password)=)[^&#]*/gi, '$1[redacted]');
}

/**
 * Structured JSON logs (pino) for the Nest Logger (nestjs-pino). Its request middleware is left
 * out (`forRoutes: []`): it runs every request in an AsyncLocalStorage context, and once one
 * request has run in one, Node 20 runs a hook for every promise and async resource the process
 * creates, short-link redirects included: ~11 700 more instructions a redirect (callgrind,
 * 71.0k against 59.3k: +20 %) in any api that has answered a single /health. Request lines are
 * written by the HTTP front instead (requestLogger), without a context; application lines (Nest
 * Logger) carry no request id.
 */
export function loggerParams(config: AppConfig): Params {
  return { pinoHttp: httpLogOptions(config), forRoutes: [] };
}

/**
 * Writes one line per request when its response is over (/health left out), as pino-http wrote
 * them: `{req: {id, method, url}, res: {statusCode}, responseTime, msg: "request completed"}`
 * (`request aborted` when the client went first), 5xx at `error` with `err` and `request
 * errored`; called by the HTTP front for the paths Nest serves. Not pino-http itself, which
 * gives every request a child logger, serializes it (every header) at once whether its line is
 * written or not, and three listeners: here a request costs one counter and one listener, and
 * its line is built only when the level writes it (~2 % of a link creation's CPU,
 * docs/performance.md).
 */
export function requestLogger(
  config: AppConfig,
): (req: IncomingMessage, res: ServerResponse) => void {
  const logger = pino({ level: config.LOG_LEVEL });
  const successes = logger.isLevelEnabled('info');
  if (!logger.isLevelEnabled('error')) return () => undefined;
  // pino-http's request ids: a counter of this process
  let lastId = 0;
  // client errors are routine (a 429 flood must not become a log flood): info, like successes
  return (req, res) => {
    const url = req.url ?? '';
    if (url.startsWith('/health')) return;
    const id = (lastId = (lastId + 1) & 0x7fffffff);
    const started = Date.now();
    // 'close' comes once per response: after it is sent, or when the connection went first
    res.on('close', () => {
      const statusCode = res.statusCode;
      if (statusCode < 500 && !successes) return;
      const line = {
        req: { id, method: req.method, url: redactUrl(url) },
        res: { statusCode },
        responseTime: Date.now() - started,
      };
      if (statusCode >= 500) {
        const { responseTime, ...rest } = line;
        const err = new Error(`failed with status code ${statusCode}`);
        logger.error({ ...rest, err, responseTime }, 'request errored');
      } else
        logger.info(
          line,
          !req.readableAborted && res.writableEnded ? 'request completed' : 'request aborted',
        );
    });
  };
}

/**
 * The options of nestjs-pino's logger: application lines only (its request middleware is not
 * used, so request lines, their levels and the /health exception are requestLogger's). A line
 * that carries a request or response shows only these fields: authorization headers, cookies,
 * bodies and tokens never reach the log.
 */
function httpLogOptions(config: AppConfig): Options {
  return {
    level: config.LOG_LEVEL,
    redact: {
      paths: ['req.headers.authorization', 'req.headers.cookie', 'res.headers["set-cookie"]'],
      censor: '[redacted]',
    },
    serializers: {
      req: (req: IncomingMessage & { id?: unknown }) => ({
        id: req.id,
        method: req.method,
        url: redactUrl(req.url),
      }),
      res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
    },
  };
}
