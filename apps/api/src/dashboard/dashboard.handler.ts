import { IncomingMessage, ServerResponse } from 'node:http';

import { PAGES } from '../public/pages';
import { SECURITY_HEADERS, staticPage } from '../public/responder';
import { DashboardFile, DashboardFiles } from './dashboard-files';

/**
 * The dashboard's page: its own script and style files only (no inline script or style), its
 * own origin for API calls, never framed.
 */
export const DASHBOARD_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "object-src 'none'",
].join('; ');

/** Hashed files never change under their name. */
export const IMMUTABLE = 'public, max-age=31536000, immutable';

/**
 * A path below /app/ that may name a file or a page of the app: segments of letters, digits,
 * `.`, `_` and `-`, none of them `.` or `..`. Anything else (`..`, `%2e%2e`, `\`, `//`) is a 404:
 * no client route looks like that, and refusing them keeps every odd path away from the files.
 */
const SAFE_PATH = /^(?:[A-Za-z0-9_-][A-Za-z0-9._-]*)(?:\/[A-Za-z0-9_-][A-Za-z0-9._-]*)*\/?$/;

const NOT_BUILT = staticPage(PAGES.dashboardNotBuilt, ['Retry-After', '60']);
const NOT_FOUND = staticPage(PAGES.dashboardFileNotFound);

/**
 * Serves the built dashboard at /app (apps/web; docs/dashboard.md): `/app/assets/…` are the
 * hashed files (cached as immutable; an unknown one is a 404, never the page), every other path
 * below /app is a page of the app and gets index.html (`no-cache`: always revalidated, so a new
 * build shows at once), under DASHBOARD_CSP. Without a build (e.g. unit tests) every path is a
 * 503 page that says so.
 */
export class DashboardHandler {
  constructor(private readonly files: DashboardFiles) {}

  /** `rest`: the path after `/app/` ('' for `/app` and `/app/`), without the query string. */
  handle(req: IncomingMessage, res: ServerResponse, rest: string): void {
    const index = this.files.index;
    if (index === null) return send(res, 503, NOT_BUILT);
    if (rest !== '' && !SAFE_PATH.test(rest)) return send(res, 404, NOT_FOUND);
    const file = rest === '' ? undefined : this.files.files.get(rest);
    if (file !== undefined && rest !== 'index.html')
      return this.sendFile(req, res, file, rest.startsWith('assets/') ? IMMUTABLE : 'no-cache');
    // a missing hashed file is an old build's: a 404, so that it fails loudly instead of
    // running index.html as a script
    if (rest.startsWith('assets/')) return send(res, 404, NOT_FOUND);
    this.sendFile(req, res, index, 'no-cache', true);
  }

  private sendFile(
    req: IncomingMessage,
    res: ServerResponse,
    file: DashboardFile,
    cacheControl: string,
    page = false,
  ): void {
    const gzip = file.gzip !== null && acceptsGzip(req.headers['accept-encoding']);
    const body = gzip ? (file.gzip as Buffer) : file.body;
    // prettier-ignore
    const headers = [
      'Content-Type', file.type,
      'Content-Length', String(body.length),
      'Cache-Control', cacheControl,
      'Vary', 'Accept-Encoding',
      ...SECURITY_HEADERS,
    ];
    if (gzip) headers.push('Content-Encoding', 'gzip');
    if (page) headers.push('Content-Security-Policy', DASHBOARD_CSP);
    res.writeHead(200, headers);
    res.end(req.method === 'HEAD' ? undefined : body);
  }
}

function send(res: ServerResponse, status: number, page: { body: Buffer; headers: string[] }) {
  res.writeHead(status, page.headers);
  res.end(res.req?.method === 'HEAD' ? undefined : page.body);
}

/** `Accept-Encoding` lists gzip without `q=0`. */
export function acceptsGzip(header: string | undefined): boolean {
  if (!header) return false;
  for (const part of header.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    if (name !== 'gzip' && name !== '*') continue;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  }
  return false;
}
