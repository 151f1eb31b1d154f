import { mkdir, mkdtemp, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import sharp from 'sharp';

import { AppConfig } from '@app/config';

import { LogoError } from './logo-error';
import { LogoLoader } from './logo-loader';

describe('LogoLoader', () => {
  let storage: string;
  let server: Server;
  let base: string;
  let png: Buffer;
  let jpeg: Buffer;
  const hits: string[] = [];

  const loader = (allowPrivate: boolean, limits: Partial<LogoLoader['limits']> = {}) => {
    const config = Object.assign(new AppConfig(), {
      STORAGE_DIR: storage,
      ALLOW_PRIVATE_FETCH: allowPrivate,
    });
    const l = new LogoLoader(config);
    l.limits = { ...l.limits, ...limits };
    return l;
  };
  const failure = async (p: Promise<unknown>): Promise<{ message: string; permanent: boolean }> => {
    const err = await p.then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(LogoError);
    return { message: (err as LogoError).message, permanent: (err as LogoError).permanent };
  };

  beforeAll(async () => {
    storage = await mkdtemp(join(tmpdir(), 'logo-loader-'));
    await mkdir(join(storage, 'assets'));
    png = await sharp({ create: { width: 40, height: 20, channels: 4, background: '#ff0000' } })
      .png()
      .toBuffer();
    jpeg = await sharp({ create: { width: 20, height: 20, channels: 3, background: '#00ff00' } })
      .jpeg()
      .toBuffer();
    await writeFile(join(storage, 'assets', 'logo.png'), png);
    await writeFile(join(storage, 'assets', 'fake.png'), 'GIF89a not really');
    await writeFile(join(storage, 'secret.png'), png);
    await symlink(join(storage, 'secret.png'), join(storage, 'assets', 'escape.png'));
    await mkdir(join(storage, 'assets', 'dir.png'));

    server = createServer((req, res) => {
      hits.push(req.url ?? '');
      switch (req.url) {
        case '/logo.png':
          return res.writeHead(200, { 'Content-Type': 'image/png' }).end(png);
        case '/logo.jpg':
          return res.writeHead(200, { 'Content-Type': 'image/jpeg' }).end(jpeg);
        case '/redirect':
          return res.writeHead(302, { Location: '/logo.png' }).end();
        case '/loop':
          return res.writeHead(302, { Location: '/loop' }).end();
        case '/to-ftp':
          return res.writeHead(302, { Location: 'ftp://example.com/x.png' }).end();
        case '/declared-big':
          return res.writeHead(200, { 'Content-Length': String(3 * 1024 * 1024) }).end();
        case '/streamed-big': {
          res.writeHead(200, { 'Content-Type': 'image/png' });
          const chunk = Buffer.alloc(64 * 1024, 1);
          let sent = 0;
          const push = () => {
            while (sent < 3 * 1024 * 1024) {
              sent += chunk.length;
              if (!res.write(chunk)) return res.once('drain', push);
            }
            res.end();
          };
          return push();
        }
        case '/text':
          return res.writeHead(200, { 'Content-Type': 'text/plain' }).end('hello');
        case '/gif':
          return res.writeHead(200).end(Buffer.from('R0lGODlhAQABAAAAACw=', 'base64'));
        case '/slow':
          return setTimeout(() => res.writeHead(200).end(png), 2000).unref();
        case '/stall':
          res.writeHead(200);
          res.write(png.subarray(0, 10));
          return; // never ends
        case '/error':
          return res.writeHead(503).end();
        default:
          return res.writeHead(404).end();
      }
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    server.close();
    await rm(storage, { recursive: true, force: true });
  });

  describe('assets', () => {
    it('reads a PNG from the assets folder', async () => {
      expect(Buffer.compare(await loader(false).load('logo.png'), png)).toBe(0);
    });

    it('refuses traversal, symlinks out of the folder, folders, missing files and non-images', async () => {
      expect(await failure(loader(false).load('../secret.png'))).toEqual({
        message: expect.stringMatching(/^logo: file name must not contain/),
        permanent: true,
      });
      expect(await failure(loader(false).load('escape.png'))).toEqual({
        message: 'logo: the file must stay inside the assets folder',
        permanent: true,
      });
      expect(await failure(loader(false).load('dir.png'))).toEqual({
        message: 'logo: no file "dir.png" in the assets folder',
        permanent: true,
      });
      expect(await failure(loader(false).load('none.png'))).toEqual({
        message: 'logo: no file "none.png" in the assets folder',
        permanent: true,
      });
      expect(await failure(loader(false).load('fake.png'))).toEqual({
        message: 'logo: not a PNG or JPEG image',
        permanent: true,
      });
    });

    it('reads a file once while it is unchanged, and again once it is replaced', async () => {
      const l = loader(false);
      const first = await l.load('logo.png');
      expect(await l.load('logo.png')).toBe(first);
      const other = await sharp({
        create: { width: 10, height: 10, channels: 3, background: '#0000ff' },
      })
        .png()
        .toBuffer();
      await writeFile(join(storage, 'assets', 'swap.png.tmp'), other);
      await rename(join(storage, 'assets', 'swap.png.tmp'), join(storage, 'assets', 'logo.png'));
      expect(Buffer.compare(await l.load('logo.png'), other)).toBe(0);
      await writeFile(join(storage, 'assets', 'logo.png'), 'not an image any more');
      expect(await failure(l.load('logo.png'))).toEqual({
        message: 'logo: not a PNG or JPEG image',
        permanent: true,
      });
      await writeFile(join(storage, 'assets', 'logo.png'), png);
    });

    it('refuses a file over the size cap', async () => {
      expect(await failure(loader(false, { maxBytes: 10 }).load('logo.png'))).toEqual({
        message: expect.stringMatching(/^logo: larger than/),
        permanent: true,
      });
    });
  });

  describe('URLs', () => {
    it('fetches PNG and JPEG, following redirects, when private addresses are allowed', async () => {
      expect(Buffer.compare(await loader(true).load(`${base}/logo.png`), png)).toBe(0);
      expect(Buffer.compare(await loader(true).load(`${base}/logo.jpg`), jpeg)).toBe(0);
      expect(Buffer.compare(await loader(true).load(`${base}/redirect`), png)).toBe(0);
      expect(
        Buffer.compare(
          await loader(true).load(`${base.replace('127.0.0.1', 'localhost')}/logo.png`),
          png,
        ),
      ).toBe(0);
    });

    it('refuses loopback literals and host names resolving to loopback, without connecting', async () => {
      hits.length = 0;
      expect(await failure(loader(false).load(`${base}/logo.png`))).toEqual({
        message: 'logo: URL must not point to a private, loopback or link-local address',
        permanent: true,
      });
      expect(
        await failure(loader(false).load(`${base.replace('127.0.0.1', 'localhost')}/logo.png`)),
      ).toEqual({
        message: 'logo: localhost resolves to a private, loopback or link-local address',
        permanent: true,
      });
      expect(hits).toEqual([]);
    });

    it('refuses bodies over the cap, declared or streamed', async () => {
      expect(await failure(loader(true).load(`${base}/declared-big`))).toEqual({
        message: 'logo: larger than 2 MB',
        permanent: true,
      });
      expect(await failure(loader(true).load(`${base}/streamed-big`))).toEqual({
        message: 'logo: larger than 2 MB',
        permanent: true,
      });
    });

    it('refuses what is not PNG or JPEG, errors, loops and non-http redirects', async () => {
      expect(await failure(loader(true).load(`${base}/text`))).toEqual({
        message: 'logo: not a PNG or JPEG image',
        permanent: true,
      });
      expect(await failure(loader(true).load(`${base}/gif`))).toEqual({
        message: 'logo: not a PNG or JPEG image',
        permanent: true,
      });
      expect(await failure(loader(true).load(`${base}/missing`))).toEqual({
        message: 'logo: the URL answered HTTP 404',
        permanent: true,
      });
      expect(await failure(loader(true).load(`${base}/error`))).toEqual({
        message: 'logo: the URL answered HTTP 503',
        permanent: false,
      });
      expect(await failure(loader(true).load(`${base}/loop`))).toEqual({
        message: 'logo: too many redirects',
        permanent: true,
      });
      expect(await failure(loader(true).load(`${base}/to-ftp`))).toEqual({
        message: 'logo: redirect to a non-http(s) URL',
        permanent: true,
      });
    });

    it('gives up at the deadline, waiting for headers or for the body (retried later)', async () => {
      const started = Date.now();
      expect(await failure(loader(true, { timeoutMs: 300 }).load(`${base}/slow`))).toEqual({
        message: 'logo: no complete answer within 0.3 s',
        permanent: false,
      });
      expect(await failure(loader(true, { timeoutMs: 300 }).load(`${base}/stall`))).toEqual({
        message: 'logo: no complete answer within 0.3 s',
        permanent: false,
      });
      expect(Date.now() - started).toBeLessThan(1500);
    });

    it('a closed port is a transient failure', async () => {
      const probe = createServer();
      await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
      const port = (probe.address() as AddressInfo).port;
      await new Promise((r) => probe.close(r));
      expect(await failure(loader(true).load(`http://127.0.0.1:${port}/logo.png`))).toEqual({
        message: 'logo: could not be fetched (ECONNREFUSED)',
        permanent: false,
      });
    });
  });
});
