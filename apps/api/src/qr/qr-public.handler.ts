import { FileHandle, open } from 'node:fs/promises';
import { IncomingMessage, ServerResponse } from 'node:http';
import { pipeline } from 'node:stream/promises';

import { Injectable, Logger } from '@nestjs/common';

import { mapError } from '@app/common';
import { AppConfig } from '@app/config';
import { QR_CODE_PATTERN, QrImageFormat, qrImagePath } from '@app/qr';
import { VisitRecorder } from '@app/stats';

import { clientIp, compileTrust, TrustFn } from '../public/client-ip';
import { Page, PAGES } from '../public/pages';
import { REDIRECT_CACHE_CONTROL } from '../public/resolved-link';
import { qrTextPage, qrWifiPage } from './qr-pages';
import { qrContent } from './qr-payload';
import { QrResolver, ResolvedQr } from './qr-resolver';

const PATH = /^([A-Za-z0-9_-]{1,64})(?:\.(png|svg))?$/;
const REDIRECT_CACHE = REDIRECT_CACHE_CONTROL;
const IMAGE_CACHE = 'public, max-age=300';
const IMAGE_TYPES: Record<QrImageFormat, string> = { png: 'image/png', svg: 'image/svg+xml' };

const SVG_CSP = "default-src 'none'; style-src 'unsafe-inline'";
// prettier-ignore
const PAGE_HEADERS = [
  'X-Content-Type-Options', 'nosniff',
  'Referrer-Policy', 'no-referrer',
  'X-Frame-Options', 'DENY',
];

/**
 * The public side of QR codes, mounted at `/q/`:
 * - `/q/<code>`: counts the scan and answers by type: link → 302 to the URL; email, phone, sms →
 *   302 to `mailto:` / `tel:` / `sms:`; vcard → a `.vcf` download; text and wifi → a small HTML page;
 * - `/q/<code>.png` and `/q/<code>.svg`: the rendered image (404 until the worker has made it).
 *
 * Plain node:http, no Express: the scan path does one cached lookup and writes the answer, and the
 * visit is recorded after the response has gone out.
 */
@Injectable()
export class QrPublicHandler {
  private readonly logger = new Logger(QrPublicHandler.name);
  /** Whose X-Forwarded-For is believed, as for the redirector and Express (TRUST_PROXY). */
  private readonly trust: TrustFn = compileTrust(process.env.TRUST_PROXY);

  constructor(
    private readonly config: AppConfig,
    private readonly resolver: QrResolver,
    private readonly visits: VisitRecorder,
  ) {}

  /** `path` is what follows `/q/` in the request path (a query string, if any, is ignored). */
  async handle(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    try {
      const match = PATH.exec(path.split('?', 1)[0]);
      if (!match || !QR_CODE_PATTERN.test(match[1])) return this.notFound(res);
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        return this.sendPage(res, 405, PAGES.methodNotAllowed, ['Allow', 'GET, HEAD']);
      }
      const [, code, format] = match;
      const qr = await this.resolver.resolve(code);
      if (!qr) return this.notFound(res);
      if (format) return await this.image(req, res, code, format as QrImageFormat);
      this.scan(req, res, code, qr);
    } catch (err) {
      const { status } = mapError(err);
      this.logger.error(`/q/${path}: ${(err as Error).message}`);
      if (res.headersSent) {
        res.destroy();
        return;
      }
      if (status === 503) this.sendPage(res, 503, PAGES.unavailable, ['Retry-After', '5']);
      else this.sendPage(res, 500, PAGES.error);
    }
  }

  /** The public 404 page (unknown or malformed code; also QR paths on a branded domain). */
  notFound(res: ServerResponse): void {
    this.sendPage(res, 404, PAGES.notFound);
  }

  private sendPage(
    res: ServerResponse,
    status: number,
    page: Page,
    extra: string[] = [],
    cache = 'no-store',
  ): void {
    const body = Buffer.from(page.html, 'utf8');
    // prettier-ignore
    res.writeHead(status, [
      'Content-Type', 'text/html; charset=utf-8',
      'Content-Length', String(body.length),
      'Content-Security-Policy', page.csp,
      'Cache-Control', cache,
      ...PAGE_HEADERS,
      ...extra,
    ]);
    res.end(res.req.method === 'HEAD' ? undefined : body);
  }

  /** Answers a scan and records it once the response is finished. */
  private scan(req: IncomingMessage, res: ServerResponse, code: string, qr: ResolvedQr): void {
    res.once('finish', () => this.record(req, qr));
    const { payload, target } = qrContent(qr.type, qr.data);
    const head = req.method === 'HEAD';
    if (target) {
      res.writeHead(302, {
        Location: target,
        'Cache-Control': REDIRECT_CACHE,
        'Content-Length': '0',
      });
      res.end();
      return;
    }
    if (qr.type === 'vcard') {
      const body = Buffer.from(payload, 'utf8');
      res.writeHead(200, {
        'Content-Type': 'text/vcard; charset=utf-8',
        'Content-Disposition': `attachment; filename="${code}.vcf"`,
        'Content-Length': String(body.length),
        'Cache-Control': REDIRECT_CACHE,
        'X-Content-Type-Options': 'nosniff',
      });
      res.end(head ? undefined : body);
      return;
    }
    this.sendPage(
      res,
      200,
      qr.type === 'wifi' ? qrWifiPage(qr.data) : qrTextPage(String(qr.data)),
      [],
      REDIRECT_CACHE,
    );
  }

  private record(req: IncomingMessage, qr: ResolvedQr): void {
    try {
      this.visits.record({
        linkId: qr.linkId,
        userId: qr.userId,
        method: req.method ?? 'GET',
        ip: clientIp(req.socket.remoteAddress, req.headers['x-forwarded-for'], this.trust),
        userAgent: req.headers['user-agent'],
        referer: req.headers.referer,
      });
    } catch (err) {
      this.logger.warn(`scan not recorded: ${(err as Error).message}`);
    }
  }

  /** Streams `<STORAGE_DIR>/qr/<code>.<format>` from one open handle (a re-render renames a new file in meanwhile). */
  private async image(
    req: IncomingMessage,
    res: ServerResponse,
    code: string,
    format: QrImageFormat,
  ): Promise<void> {
    let file: FileHandle;
    try {
      file = await open(qrImagePath(this.config.STORAGE_DIR, code, format), 'r');
    } catch {
      return this.notFound(res);
    }
    try {
      const info = await file.stat();
      // Every render renames a new file into place: a new inode, so the tag changes even within one millisecond.
      const etag = `"${info.ino.toString(16)}-${info.size.toString(16)}-${Math.floor(info.mtimeMs).toString(16)}"`;
      const headers: Record<string, string> = {
        'Content-Type': IMAGE_TYPES[format],
        'Cache-Control': IMAGE_CACHE,
        ETag: etag,
        'Last-Modified': info.mtime.toUTCString(),
        'X-Content-Type-Options': 'nosniff',
      };
      if (format === 'svg') headers['Content-Security-Policy'] = SVG_CSP;
      const inm = req.headers['if-none-match'];
      if (inm && inm.split(',').some((t) => t.trim().replace(/^W\//, '') === etag)) {
        res.writeHead(304, headers);
        res.end();
        return;
      }
      res.writeHead(200, { ...headers, 'Content-Length': String(info.size) });
      if (req.method === 'HEAD') {
        res.end();
        return;
      }
      await pipeline(file.createReadStream({ autoClose: false }), res).catch(
        (err: NodeJS.ErrnoException) => {
          if (err.code !== 'ERR_STREAM_PREMATURE_CLOSE')
            this.logger.warn(`/q/${code}.${format}: ${err.message}`);
        },
      );
    } finally {
      await file.close().catch(() => undefined);
    }
  }
}
