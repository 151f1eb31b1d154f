import { FileHandle, open } from 'node:fs/promises';
import { IncomingMessage, ServerResponse } from 'node:http';
import { pipeline } from 'node:stream/promises';

import { Injectable, Logger } from '@nestjs/common';

import { AppConfig } from '@app/config';
import { Blocklist, REDIRECT_CACHE_CONTROL } from '@app/links';
import { QR_CODE_PATTERN, QrImageFormat, qrImagePath } from '@app/qr';

import { PublicResponder, STATIC } from '../public/responder';
import { qrTextPage, qrWifiPage } from './qr-pages';
import { qrContent } from './qr-payload';
import { QrResolver, ResolvedQr } from './qr-resolver';

const PATH = /^([A-Za-z0-9_-]{1,64})(?:\.(png|svg))?$/;
const IMAGE_CACHE = 'public, max-age=300';
const IMAGE_TYPES: Record<QrImageFormat, string> = { png: 'image/png', svg: 'image/svg+xml' };

const SVG_CSP = "default-src 'none'; style-src 'unsafe-inline'";

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

  constructor(
    private readonly config: AppConfig,
    private readonly resolver: QrResolver,
    private readonly respond: PublicResponder,
    private readonly blocklist: Blocklist,
  ) {}

  /** `path` is what follows `/q/` in the request path (without the query string). */
  async handle(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    const match = PATH.exec(path);
    if (!match || !QR_CODE_PATTERN.test(match[1])) return this.respond.notFound(res);
    if (req.method !== 'GET' && req.method !== 'HEAD') return this.respond.methodNotAllowed(res);
    const [, code, format] = match;
    const qr = await this.resolver.resolve(code);
    if (!qr) return this.respond.notFound(res);
    if (qr.disabled) return this.respond.sendStatic(res, 451, STATIC.disabled);
    if (format) return await this.image(req, res, code, format as QrImageFormat);
    this.scan(req, res, code, qr);
  }

  /** Answers a scan and records it once the response is finished. */
  private scan(req: IncomingMessage, res: ServerResponse, code: string, qr: ResolvedQr): void {
    res.once('finish', () => this.respond.record(req, qr.linkId, qr.userId));
    const { payload, target } = qrContent(qr.type, qr.data);
    if (target && this.blocklist.match(target))
      return this.respond.sendStatic(res, 451, STATIC.disabled);
    if (target) return this.respond.redirect(res, target, REDIRECT_CACHE_CONTROL);
    if (qr.type === 'vcard') {
      const body = Buffer.from(payload, 'utf8');
      res.writeHead(200, {
        'Content-Type': 'text/vcard; charset=utf-8',
        'Content-Disposition': `attachment; filename="${code}.vcf"`,
        'Content-Length': String(body.length),
        'Cache-Control': REDIRECT_CACHE_CONTROL,
        'X-Content-Type-Options': 'nosniff',
      });
      res.end(body);
      return;
    }
    this.respond.sendPage(
      res,
      200,
      qr.type === 'wifi' ? qrWifiPage(qr.data) : qrTextPage(String(qr.data)),
      REDIRECT_CACHE_CONTROL,
    );
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
      return this.respond.notFound(res);
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
