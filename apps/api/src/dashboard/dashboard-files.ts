import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join } from 'node:path';
import { gzipSync } from 'node:zlib';

/** One built file, ready to send: its bytes, and their gzip when that is smaller. */
export interface DashboardFile {
  body: Buffer;
  gzip: Buffer | null;
  type: string;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.webmanifest': 'application/manifest+json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.webp': 'image/webp',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};
const COMPRESSIBLE = new Set([
  '.html',
  '.js',
  '.mjs',
  '.css',
  '.json',
  '.webmanifest',
  '.svg',
  '.txt',
]);

/**
 * Where `npm run build` puts the dashboard (vite, apps/web/vite.config.mts): next to the api's
 * bundle (dist/apps/api/main.js → dist/apps/web), or under the working directory's dist/ when the
 * api runs from its sources (tests).
 */
export function dashboardDirs(): string[] {
  return [join(__dirname, '..', 'web'), join(process.cwd(), 'dist', 'apps', 'web')];
}

/**
 * The built dashboard, read into memory once at start (a few hundred KB): `files` maps a path
 * below /app/ (`assets/index-B7GK1bXF.js`) to its file, so a request can only ever name a file
 * that is there (no path is joined to the disk). `index` is null when there is no build.
 */
export class DashboardFiles {
  private constructor(
    readonly dir: string | null,
    readonly index: DashboardFile | null,
    readonly files: ReadonlyMap<string, DashboardFile>,
  ) {}

  /** The first of `dirs` that holds an index.html; none → an empty set. */
  static load(dirs: string[]): DashboardFiles {
    const dir = dirs.find((d) => existsSync(join(d, 'index.html')));
    if (dir === undefined) return new DashboardFiles(null, null, new Map());
    const files = new Map<string, DashboardFile>();
    const walk = (sub: string) => {
      for (const name of readdirSync(join(dir, sub))) {
        const rel = sub === '' ? name : `${sub}/${name}`;
        const path = join(dir, rel);
        if (statSync(path).isDirectory()) walk(rel);
        else files.set(rel, fileOf(path));
      }
    };
    walk('');
    return new DashboardFiles(dir, files.get('index.html') ?? null, files);
  }
}

function fileOf(path: string): DashboardFile {
  const body = readFileSync(path);
  const ext = extname(path).toLowerCase();
  let gzip: Buffer | null = null;
  if (COMPRESSIBLE.has(ext) && body.length > 256) {
    const packed = gzipSync(body, { level: 9 });
    if (packed.length < body.length) gzip = packed;
  }
  return { body, gzip, type: TYPES[ext] ?? 'application/octet-stream' };
}
