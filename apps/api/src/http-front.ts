import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

import { AppConfig } from '@app/config';

import { requestLogger } from './logging';
import { isNestPath, PublicHandler } from './public/public-handler';
import { STATIC } from './public/responder';

export type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * What the front hands requests to: Nest (Express) and the public side. Read at every request:
 * a process that started while Postgres was down serves from its starting front first and
 * swaps both for the full api's once it is built, on the same listening server
 * (apps/api/src/starting).
 */
export interface FrontHandlers {
  nest: Handler;
  publicSide: PublicHandler;
}

const BAD_HOST_JSON = Buffer.from(
  JSON.stringify({ error: 1, message: 'Host: send exactly one Host header' }),
);

/** The Swagger UI page: its own scripts only; inline styles (the UI's own); no framing. */
function docsPolicy(publicUrl: string): string {
  const api = new URL(publicUrl).origin;
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    `connect-src 'self' ${api}`,
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/**
 * More than one Host header (HTTP/1.1 allows exactly one; proxies may disagree on which counts).
 * Counted over rawHeaders: `headersDistinct` would build an object of every header per request.
 */
function duplicateHost(req: IncomingMessage): boolean {
  const raw = req.rawHeaders;
  let seen = false;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i];
    // 'host' in any case, compared by char code (no lower-cased copy per request)
    if (
      name.length === 4 &&
      (name.charCodeAt(0) | 32) === 104 &&
      (name.charCodeAt(1) | 32) === 111 &&
      (name.charCodeAt(2) | 32) === 115 &&
      (name.charCodeAt(3) | 32) === 116
    ) {
      if (seen) return true;
      seen = true;
    }
  }
  return false;
}

/**
 * The api's HTTP server: the lean PublicHandler for short links and the public side, Nest
 * (Express) for /api, /auth, /health and /docs. Here, once for every response: a request with
 * two Host headers is a 400; Nest's answers carry `nosniff`, and `no-store` where they may carry
 * keys or tokens (/api, /auth), the docs page a CSP; slow clients are cut off (headers within
 * HEADERS_TIMEOUT_SECONDS, the whole request within REQUEST_TIMEOUT_SECONDS), and so are those
 * that stop reading a response (no byte moves either way for RESPONSE_TIMEOUT_SECONDS while a
 * request is under way); connections are capped at MAX_CONNECTIONS. (The public side sets its
 * own headers in PublicResponder and in the prebuilt 302s.)
 */
export function createFront(config: AppConfig, handlers: FrontHandlers): Server {
  const docsCsp = docsPolicy(config.publicUrl);
  const logRequest = requestLogger(config);
  const headersTimeout = config.HEADERS_TIMEOUT_SECONDS * 1000;
  const requestTimeout = Math.max(config.REQUEST_TIMEOUT_SECONDS * 1000, headersTimeout);
  const responseTimeout = config.RESPONSE_TIMEOUT_SECONDS * 1000;
  // armed once, then refreshed only by bytes moving (not by each pipelined request)
  const watch = (socket: Socket): void => {
    if (socket.timeout !== responseTimeout) socket.setTimeout(responseTimeout);
  };
  const server = createServer(
    {
      headersTimeout,
      requestTimeout,
      // how often idle or slow connections are checked against the two timeouts
      connectionsCheckingInterval: Math.min(5_000, headersTimeout),
    },
    (req, res) => {
      const url = req.url;
      if (!isNestPath(url)) {
        if (duplicateHost(req)) return badHost(req, res, false);
        handlers.publicSide.handle(req, res);
        // answered and handed to the kernel at once (a cached redirect): nothing to watch; still
        // held by the response (queued behind a pipelined one) or the socket: watched
        if (!res.writableEnded || res.writableLength > 0) watch(req.socket);
        return;
      }
      if (duplicateHost(req)) return badHost(req, res, true);
      watch(req.socket);
      logRequest(req, res);
      res.setHeader('X-Content-Type-Options', 'nosniff');
      if (url?.startsWith('/docs')) {
        res.setHeader('Content-Security-Policy', docsCsp);
        res.setHeader('X-Frame-Options', 'DENY');
      } else if (!url?.startsWith('/health')) res.setHeader('Cache-Control', 'no-store');
      handlers.nest(req, res);
    },
  );
  server.maxConnections = config.MAX_CONNECTIONS;
  // No server-wide inactivity timer: Node would arm it at every request of a keep-alive socket
  // and refresh it at every read and write, ~1.2k instructions of a cached redirect (callgrind,
  // docs/performance.md). The handler above arms the socket's timer (RESPONSE_TIMEOUT_SECONDS)
  // only for a response that is still under way when the handler returns: every Nest request,
  // and a public one that waits on Redis, Postgres or a file, or on a client that stopped
  // reading. Armed once per busy stretch: re-arming it at each pipelined request would let a
  // client that pipelines without reading keep it from ever expiring. On expiry Node's own listener destroys the socket (no 'timeout' listener is added);
  // at the response's end Node switches the socket to keepAliveTimeout, and back to no timer at
  // the next request. (CSV exports shorten it to EXPORT_STALL_SECONDS for their response.)
  server.timeout = 0;
  // longer than common load balancers' idle timeout, so they close idle connections first
  server.keepAliveTimeout = 65_000;
  return server;
}

function badHost(req: IncomingMessage, res: ServerResponse, json: boolean): void {
  res.once('finish', () => req.destroy());
  if (json) {
    res.writeHead(400, {
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': String(BAD_HOST_JSON.length),
      'X-Content-Type-Options': 'nosniff',
      'Cache-Control': 'no-store',
      Connection: 'close',
    });
    res.end(BAD_HOST_JSON);
  } else {
    res.writeHead(400, STATIC.badForm.headers);
    res.end(STATIC.badForm.body);
  }
}
