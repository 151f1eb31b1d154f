import {
  CorsOptions,
  CorsOptionsDelegate,
} from '@nestjs/common/interfaces/external/cors-options.interface';

import { AppConfig } from '@app/config';

/** Response headers a browser page may read (the rate-limit state and when to retry). */
export const CORS_EXPOSED_HEADERS = [
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'Retry-After',
];

/**
 * An /api preflight from an origin that may not call the api: the `cors` middleware still answers
 * it (204, before the rate limiter and the key guard), with no Access-Control-* header.
 */
const REFUSED_PREFLIGHT: CorsOptions = { origin: [], methods: [], allowedHeaders: [] };

/** Not a CORS request to /api: the middleware passes it on untouched. */
const NOT_CORS: CorsOptions = { origin: false };

function isApiPath(url: string | undefined): boolean {
  return (
    url !== undefined && (url === '/api' || url.startsWith('/api/') || url.startsWith('/api?'))
  );
}

/**
 * CORS for /api (the `cors` package through Nest's enableCors), from CORS_ORIGINS: a listed origin
 * (or any, with `*`) gets Access-Control-Allow-Origin and the exposed rate-limit headers; an /api
 * preflight is answered 204 with no key and is never counted by the rate limit. Keys travel in
 * the Authorization header, never in cookies: no credentials.
 */
export function corsDelegate(config: AppConfig): CorsOptionsDelegate<{
  url?: string;
  method?: string;
  headers: Record<string, string | string[] | undefined>;
}> {
  const any = config.CORS_ORIGINS.includes('*');
  const allowed = new Set(config.CORS_ORIGINS);
  const granted: CorsOptions = {
    origin: any ? '*' : [...allowed],
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'DELETE'],
    exposedHeaders: CORS_EXPOSED_HEADERS,
    maxAge: 600,
    credentials: false,
  };
  return (req, cb) => {
    if (!isApiPath(req.url)) return cb(null, NOT_CORS);
    const origin = req.headers.origin;
    if (typeof origin === 'string' && (any || allowed.has(origin))) return cb(null, granted);
    cb(null, req.method === 'OPTIONS' ? REFUSED_PREFLIGHT : NOT_CORS);
  };
}
