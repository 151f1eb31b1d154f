import { lstatSync, Stats, statSync } from 'node:fs';
import { readFile, realpath } from 'node:fs/promises';
import { IncomingMessage, request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { resolve } from 'node:path';

import { Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import sharp from 'sharp';

import { AppConfig } from '@app/config';
import {
  assetsDir,
  isInside,
  isPublicAddress,
  LogoSourceError,
  parseLogoSource,
  publicOnlyLookup,
} from '@app/qr';

import { LogoError } from './logo-error';

export interface LogoLimits {
  timeoutMs: number;
  maxBytes: number;
  maxRedirects: number;
  /** Decoded size cap, against decompression bombs. */
  maxPixels: number;
}

export const LOGO_LIMITS: LogoLimits = {
  timeoutMs: 5_000,
  maxBytes: 2 * 1024 * 1024,
  maxRedirects: 3,
  maxPixels: 4096 * 4096,
};

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * Loads a QR logo: a file of `<STORAGE_DIR>/assets` (no way out of that folder, symlinks
 * included), or an http(s) URL fetched with a 5 s deadline and a 2 MB cap, streamed. Every
 * address a host name resolves to must be public (unless ALLOW_PRIVATE_FETCH), and the
 * connection goes to the address that was checked. The bytes must decode as PNG or JPEG.
 */
@Injectable()
export class LogoLoader {
  limits: LogoLimits = LOGO_LIMITS;
  private readonly assets = new LRUCache<string, Buffer>({ max: 32 });
  private root?: Promise<string>;

  constructor(private readonly config: AppConfig) {}

  async load(logo: string): Promise<Buffer> {
    let source;
    try {
      source = parseLogoSource(logo, this.config.ALLOW_PRIVATE_FETCH);
    } catch (err) {
      if (err instanceof LogoSourceError) throw new LogoError(`logo: ${err.message}`, true);
      throw err;
    }
    if (source.kind === 'asset') return this.readAsset(source.name);
    const bytes = await this.fetch(source.url);
    await this.assertImage(bytes);
    return bytes;
  }

  /**
   * A file of the assets folder. The folder's real path is resolved once; the file itself is
   * lstat'ed, and a symlink must resolve inside the folder. Checked files are kept by identity
   * (inode, size, mtime), so the same logo on many codes is read and decoded once.
   */
  private async readAsset(name: string): Promise<Buffer> {
    const missing = () => new LogoError(`logo: no file "${name}" in the assets folder`, true);
    const dir = await this.assetsRoot().catch(() => {
      throw missing();
    });
    const path = resolve(dir, name);
    if (!isInside(dir, path))
      throw new LogoError('logo: the file must stay inside the assets folder', true);
    // Synchronous on purpose: one stat of a cached inode takes microseconds, while an
    // asynchronous one is a round trip through the thread pool that sharp's renders keep busy.
    let info: Stats | undefined;
    try {
      info = lstatSync(path, { throwIfNoEntry: false });
    } catch {
      throw missing(); // ENOTDIR, EACCES, ELOOP…: no such file for the logo either
    }
    if (info?.isSymbolicLink()) {
      const real = await realpath(path).catch(() => null);
      if (!real) throw missing();
      if (!isInside(dir, real))
        throw new LogoError('logo: the file must stay inside the assets folder', true);
      info = statSync(real, { throwIfNoEntry: false });
    }
    if (!info?.isFile()) throw missing();
    if (info.size > this.limits.maxBytes) throw new LogoError(this.tooLarge(), true);
    const key = `${name}|${info.ino}|${info.size}|${info.mtimeMs}`;
    const known = this.assets.get(key);
    if (known) return known;
    const bytes = await readFile(path);
    await this.assertImage(bytes);
    this.assets.set(key, bytes);
    return bytes;
  }

  private assetsRoot(): Promise<string> {
    this.root ??= realpath(assetsDir(this.config.STORAGE_DIR)).catch((err: Error) => {
      this.root = undefined;
      throw err;
    });
    return this.root;
  }

  private tooLarge(): string {
    return `logo: larger than ${Math.round(this.limits.maxBytes / 1024 / 1024)} MB`;
  }

  private async assertImage(bytes: Buffer): Promise<void> {
    const meta = await sharp(bytes, { limitInputPixels: this.limits.maxPixels })
      .metadata()
      .catch(() => null);
    if (!meta || (meta.format !== 'png' && meta.format !== 'jpeg'))
      throw new LogoError('logo: not a PNG or JPEG image', true);
    if (!meta.width || !meta.height || meta.width * meta.height > this.limits.maxPixels) {
      throw new LogoError('logo: image dimensions are too large', true);
    }
  }

  private async fetch(start: URL): Promise<Buffer> {
    const deadline = Date.now() + this.limits.timeoutMs;
    let url = start;
    for (let hop = 0; ; hop++) {
      const res = await this.get(url, deadline);
      if (REDIRECTS.has(res.statusCode ?? 0) && res.headers.location) {
        res.resume();
        if (hop >= this.limits.maxRedirects) throw new LogoError('logo: too many redirects', true);
        let next: URL;
        try {
          next = new URL(res.headers.location, url);
        } catch {
          throw new LogoError('logo: invalid redirect', true);
        }
        if (next.protocol !== 'http:' && next.protocol !== 'https:')
          throw new LogoError('logo: redirect to a non-http(s) URL', true);
        url = next;
        continue;
      }
      const status = res.statusCode ?? 0;
      if (status !== 200) {
        res.resume();
        throw new LogoError(
          `logo: the URL answered HTTP ${status}`,
          status >= 400 && status < 500 && status !== 408 && status !== 429,
        );
      }
      return this.readBody(res, deadline);
    }
  }

  /** One GET with the address check in the connection's own DNS lookup (no re-resolution gap). */
  private get(url: URL, deadline: number): Promise<IncomingMessage> {
    const allowPrivate = this.config.ALLOW_PRIVATE_FETCH;
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (!allowPrivate && isIP(host) && !isPublicAddress(host)) {
      return Promise.reject(
        new LogoError('logo: the URL points to a private, loopback or link-local address', true),
      );
    }
    const lookup = publicOnlyLookup(
      allowPrivate,
      (hostname) =>
        new LogoError(
          `logo: ${hostname} resolves to a private, loopback or link-local address`,
          true,
        ),
    );
    const remaining = deadline - Date.now();
    if (remaining <= 0) return Promise.reject(this.timeout());
    return new Promise((resolve, reject) => {
      const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
      const req = send(url, {
        method: 'GET',
        agent: false,
        lookup,
        signal: AbortSignal.timeout(remaining),
        headers: {
          'User-Agent': 'link-management-qr-logo/1.0',
          Accept: 'image/png, image/jpeg;q=0.9, */*;q=0.1',
        },
      });
      req.once('response', resolve);
      req.once('error', (err: NodeJS.ErrnoException) => reject(this.networkError(err)));
      req.end();
    });
  }

  private readBody(res: IncomingMessage, deadline: number): Promise<Buffer> {
    const declared = Number(res.headers['content-length']);
    if (Number.isFinite(declared) && declared > this.limits.maxBytes) {
      res.destroy();
      return Promise.reject(new LogoError(this.tooLarge(), true));
    }
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      let settled = false;
      const fail = (err: Error) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        reject(err);
        res.destroy();
      };
      // Past the deadline, whatever broke the stream (the request's abort signal included) is a timeout.
      const broken = (err: NodeJS.ErrnoException) =>
        fail(Date.now() >= deadline ? this.timeout() : this.networkError(err));
      const timer = setTimeout(() => fail(this.timeout()), Math.max(0, deadline - Date.now()));
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > this.limits.maxBytes) return fail(new LogoError(this.tooLarge(), true));
        chunks.push(chunk);
      });
      res.once('end', () => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(Buffer.concat(chunks, size));
      });
      res.once('error', broken);
      res.once('aborted', () =>
        broken(Object.assign(new Error('aborted'), { code: 'ECONNRESET' })),
      );
    });
  }

  private timeout(): LogoError {
    return new LogoError(
      `logo: no complete answer within ${this.limits.timeoutMs / 1000} s`,
      false,
    );
  }

  private networkError(err: NodeJS.ErrnoException): Error {
    if (err instanceof LogoError) return err;
    if (err.name === 'AbortError' || err.name === 'TimeoutError' || err.code === 'ABORT_ERR')
      return this.timeout();
    if (err.code === 'ENOTFOUND') return new LogoError('logo: host not found', true);
    return new LogoError(`logo: could not be fetched (${err.code ?? err.message})`, false);
  }
}
