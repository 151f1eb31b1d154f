import { createHash } from 'node:crypto';
import { FileHandle, open } from 'node:fs/promises';
import { IncomingMessage, ServerResponse } from 'node:http';
import { pipeline } from 'node:stream/promises';

import { Injectable, Logger } from '@nestjs/common';

import { mapError } from '@app/common';
import { AppConfig } from '@app/config';
import { QR_CODE_PATTERN, QrImageFormat, qrImagePath } from '@app/qr';
import { VisitRecorder } from '@app/stats';

import { qrContent, QrData } from './qr-payload';
import { QrResolver, ResolvedQr } from './qr-resolver';

const PATH = /^([A-Za-z0-9_-]{1,64})(?:\.(png|svg))?$/;
const REDIRECT_CACHE = 'private, max-age=90';
const IMAGE_CACHE = 'public, max-age=300';
const IMAGE_TYPES: Record<QrImageFormat, string> = { png: 'image/png', svg: 'image/svg+xml' };

const PAGE_STYLE =
  'body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:#f4f5f7;color:#1d1f23}' +
  'main{max-width:36rem;margin:2rem auto;padding:1.5rem;background:#fff;border-radius:12px;box-shadow:0 1px 4px #0002}' +
  'h1{font-size:1.25rem;margin:0 0 1rem}pre{white-space:pre-wrap;word-break:break-word;font:inherit;margin:0}' +
  'dl{display:grid;grid-template-columns:auto 1fr;gap:.5rem 1rem;margin:0}dt{color:#5f6673}dd{margin:0;word-break:break-all}' +
  'code{font-size:1.1em}p.hint{color:#5f6673;font-size:.9rem;margin:1rem 0 0}';
/** Pages allow nothing but their own inline style (by hash): no script, image, frame or form. */
const PAGE_CSP =
  `default-src 'none'; style-src 'sha256-${createHash('sha256').update(PAGE_STYLE).digest('base64')}'; ` +
  "base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
const SVG_CSP = "default-src 'none'; style-src 'unsafe-inline'";

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

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
    private readonly visits: VisitRecorder,
  ) {}

  /** `path` is what follows `/q/` in the request path (a query string, if any, is ignored). */
  async handle(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    try {
      const match = PATH.exec(path.split('?', 1)[0]);
      if (!match || !QR_CODE_PATTERN.test(match[1])) return this.notFound(res);
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        res.writeHead(405, { Allow: 'GET, HEAD', 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ error: 1, message: 'Method not allowed' }));
        return;
      }
      const [, code, format] = match;
      const qr = await this.resolver.resolve(code);
      if (!qr) return this.notFound(res);
      if (format) return await this.image(req, res, code, format as QrImageFormat);
      this.scan(req, res, code, qr);
    } catch (err) {
      const { status, message } = mapError(err);
      if (status >= 500) this.logger.error(`/q/${path}: ${(err as Error).message}`);
      if (res.headersSent) {
        res.destroy();
        return;
      }
      res.writeHead(status >= 500 ? 503 : status, {
        'Content-Type': 'application/json',
        'Cache-Control': 'no-store',
      });
      res.end(
        JSON.stringify({
          error: 1,
          message: status >= 500 ? 'Service temporarily unavailable, try again shortly' : message,
        }),
      );
    }
  }

  private notFound(res: ServerResponse): void {
    res.writeHead(404, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' });
    res.end(JSON.stringify({ error: 1, message: 'QR code not found' }));
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
    const body = Buffer.from(
      qr.type === 'wifi' ? wifiPage(qr.data) : textPage(String(qr.data)),
      'utf8',
    );
    res.writeHead(200, {
      'Content-Type': 'text/html; charset=utf-8',
      'Content-Length': String(body.length),
      'Cache-Control': REDIRECT_CACHE,
      'Content-Security-Policy': PAGE_CSP,
      'X-Content-Type-Options': 'nosniff',
      'X-Frame-Options': 'DENY',
      'Referrer-Policy': 'no-referrer',
    });
    res.end(head ? undefined : body);
  }

  private record(req: IncomingMessage, qr: ResolvedQr): void {
    try {
      this.visits.record({
        linkId: qr.linkId,
        userId: qr.userId,
        method: req.method ?? 'GET',
        ip: req.socket.remoteAddress ?? '',
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

function page(title: string, body: string): string {
  return (
    '<!doctype html><html lang="en"><head><meta charset="utf-8">' +
    '<meta name="viewport" content="width=device-width,initial-scale=1"><meta name="robots" content="noindex">' +
    `<title>${escapeHtml(title)}</title><style>${PAGE_STYLE}</style></head>` +
    `<body><main>${body}</main></body></html>`
  );
}

function textPage(text: string): string {
  return page('Text', `<h1>Text</h1><pre>${escapeHtml(text)}</pre>`);
}

function wifiPage(data: QrData): string {
  const o = typeof data === 'object' ? data : {};
  const ssid = String(o.ssid ?? '');
  const encryption = String(o.encryption ?? 'nopass');
  const rows: Array<[string, string]> = [['Network', ssid]];
  if (encryption !== 'nopass') rows.push(['Password', String(o.pass ?? '')]);
  rows.push(['Security', encryption === 'nopass' ? 'None (open network)' : encryption]);
  if (o.hidden === true) rows.push(['Hidden', 'Yes: add the network by its name']);
  const list = rows
    .map(([k, v]) => `<dt>${escapeHtml(k)}</dt><dd><code>${escapeHtml(v)}</code></dd>`)
    .join('');
  return page(
    `Wi-Fi: ${ssid}`,
    `<h1>Wi-Fi network</h1><dl>${list}</dl>` +
      '<p class="hint">Open the Wi-Fi settings of your device, choose this network and enter the password.</p>',
  );
}
