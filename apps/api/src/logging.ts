import { IncomingMessage } from 'node:http';

import { Params } from 'nestjs-pino';

import { AppConfig } from '@app/config';

/** Strips secrets from a URL before it is logged: login-link tokens and key-like query values. */
export function redactUrl(url: string | undefined): string {
  return (url ?? '')
    .replace(/(\/auth\/login\/)[^/?#]+/, '$1[redacted]')
    .replace(/([?&](?:key|api_key|apikey|token|password)=)[^&#]*/gi, '$1[redacted]');
}

/** Structured JSON logs (pino). Authorization headers, cookies, bodies and tokens never reach them. */
export function loggerParams(config: AppConfig): Params {
  return {
    pinoHttp: {
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
      autoLogging: { ignore: (req) => (req.url ?? '').startsWith('/health') },
      // Client errors are routine (a 429 flood must not become a log flood): info, like successes.
      customLogLevel: (_req, res, err) => (err || res.statusCode >= 500 ? 'error' : 'info'),
    },
  };
}
