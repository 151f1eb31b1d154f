import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';

import { DashboardFiles } from './dashboard-files';
import { acceptsGzip, DASHBOARD_CSP, DashboardHandler, IMMUTABLE } from './dashboard.handler';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** The handler behind a bare server: `/app…` paths go to it as the module hands them over. */
async function serve(files: DashboardFiles): Promise<{ get: GetFn; close: () => void }> {
  const handler = new DashboardHandler(files);
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    handler.handle(req, res, path === '/app' ? '' : path.slice('/app/'.length));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  // node:http sends the path as written: no client-side `..` resolution
  const get: GetFn = (path, headers = {}, method = 'GET') =>
    new Promise((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path, method, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks),
          }),
        );
      });
      req.on('error', reject);
      req.end();
    });
  return { get, close: () => server.close() };
}
type GetFn = (path: string, headers?: Record<string, string>, method?: string) => Promise<Answer>;

describe('DashboardHandler', () => {
  let dir: string;
  const INDEX =
    '<!doctype html><title>Dashboard</title><script type="module" src="/app/assets/index-AbC123.js"></script>';
  const JS = `console.log(${JSON.stringify('x'.repeat(2000))});`;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'web-'));
    mkdirSync(join(dir, 'assets'));
    writeFileSync(join(dir, 'index.html'), INDEX);
    writeFileSync(join(dir, 'assets', 'index-AbC123.js'), JS);
    writeFileSync(join(dir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
    // outside the build: must never be served
    writeFileSync(join(dir, '..', `${dir.split('/').pop()}-secret.txt`), 'secret');
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
    rmSync(`${dir}-secret.txt`, { force: true });
  });

  it('serves index.html for /app, /app/ and every page path, no-cache, under the CSP', async () => {
    const { get, close } = await serve(DashboardFiles.load(['/nonexistent', dir]));
    try {
      for (const path of [
        '/app',
        '/app/',
        '/app/links',
        '/app/links/42/edit',
        '/app/sign-in?next=x',
      ]) {
        const r = await get(path);
        expect([path, r.status]).toEqual([path, 200]);
        expect(r.body.toString()).toBe(INDEX);
        expect(r.headers['content-type']).toBe('text/html; charset=utf-8');
        expect(r.headers['cache-control']).toBe('no-cache');
        expect(r.headers['content-security-policy']).toBe(DASHBOARD_CSP);
        expect(r.headers['x-content-type-options']).toBe('nosniff');
      }
    } finally {
      close();
    }
  });

  it('serves hashed assets as immutable, gzipped when asked; an unknown asset is a 404', async () => {
    const { get, close } = await serve(DashboardFiles.load([dir]));
    try {
      const plain = await get('/app/assets/index-AbC123.js');
      expect(plain.status).toBe(200);
      expect(plain.headers['cache-control']).toBe(IMMUTABLE);
      expect(plain.headers['content-type']).toBe('text/javascript; charset=utf-8');
      expect(plain.body.toString()).toBe(JS);
      const packed = await get('/app/assets/index-AbC123.js', { 'Accept-Encoding': 'gzip, br' });
      expect(packed.headers['content-encoding']).toBe('gzip');
      expect(packed.body.length).toBeLessThan(JS.length);
      expect(gunzipSync(packed.body).toString()).toBe(JS);
      const head = await get('/app/assets/index-AbC123.js', {}, 'HEAD');
      expect([head.status, head.body.length]).toEqual([200, 0]);
      const old = await get('/app/assets/index-Old999.js');
      expect(old.status).toBe(404);
      expect(old.headers['content-type']).toBe('text/html; charset=utf-8');
      expect((await get('/app/favicon.svg')).headers['cache-control']).toBe('no-cache');
    } finally {
      close();
    }
  });

  it('refuses traversal and odd paths with a 404, never a file outside the build', async () => {
    const { get, close } = await serve(DashboardFiles.load([dir]));
    const secret = `${dir.split('/').pop()}-secret.txt`;
    try {
      for (const path of [
        '/app/../../etc/passwd',
        `/app/../${secret}`,
        '/app/assets/../../etc/passwd',
        '/app/%2e%2e/%2e%2e/etc/passwd',
        '/app/%2E%2E%2F%2E%2E%2Fetc%2Fpasswd',
        '/app/..%2f..%2fetc%2fpasswd',
        '/app/..\\..\\etc\\passwd',
        '/app/./index.html',
        '/app//etc/passwd',
        '/app/assets/%00.js',
      ]) {
        const r = await get(path);
        expect([path, r.status]).toEqual([path, 404]);
        expect(r.body.toString()).not.toMatch(/root:|secret/);
      }
    } finally {
      close();
    }
  });

  it('without a build every path is a 503 page that says so', async () => {
    const files = DashboardFiles.load([join(dir, 'missing'), '/nonexistent/dist/apps/web']);
    expect(files.index).toBeNull();
    const { get, close } = await serve(files);
    try {
      for (const path of ['/app', '/app/links', '/app/assets/index-AbC123.js']) {
        const r = await get(path);
        expect([path, r.status]).toEqual([path, 503]);
        expect(r.body.toString()).toContain('npm run build');
        expect(r.headers['cache-control']).toBe('no-store');
      }
    } finally {
      close();
    }
  });

  it('acceptsGzip reads Accept-Encoding with its q values', () => {
    expect(acceptsGzip(undefined)).toBe(false);
    expect(acceptsGzip('gzip')).toBe(true);
    expect(acceptsGzip('br, gzip;q=0.5')).toBe(true);
    expect(acceptsGzip('gzip;q=0')).toBe(false);
    expect(acceptsGzip('identity')).toBe(false);
    expect(acceptsGzip('*')).toBe(true);
  });
});
