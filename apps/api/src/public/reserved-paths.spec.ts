import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { isNestPath, NEST_ROOTS, PUBLIC_PREFIXES } from '@app/common';
import { isReservedAlias, RESERVED_ALIASES } from '@app/links';

import { PublicRoutes } from './public-routes';

const SRC = join(__dirname, '..');

/** The api's source files (not specs), with their text. */
function sources(): Array<{ file: string; text: string }> {
  const out: Array<{ file: string; text: string }> = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts'))
        out.push({ file: path, text: readFileSync(path, 'utf8') });
    }
  };
  walk(SRC);
  return out;
}

/** Every path the api's controllers declare (`@Controller('a')` + `@Get('b/:id')` → `/a/b/:id`). */
function controllerPaths(): string[] {
  const paths: string[] = [];
  for (const { text } of sources()) {
    const controller = /@Controller\(\s*(?:'([^']*)')?\s*\)/.exec(text);
    if (!controller) continue;
    const base = controller[1] ?? '';
    const methods = /@(?:Get|Post|Put|Patch|Delete|All|Head|Options)\(\s*(?:'([^']*)')?\s*\)/g;
    for (const m of text.matchAll(methods))
      paths.push(`/${[base, m[1] ?? ''].filter((p) => p !== '').join('/')}`);
  }
  return paths;
}

describe('reserved aliases come from the paths the service serves', () => {
  it("every path of the api's controllers and of Swagger is under a Nest root, which isNestPath keeps", () => {
    const paths = controllerPaths();
    expect(paths.length).toBeGreaterThan(30);
    const bootstrap = readFileSync(join(SRC, 'bootstrap.ts'), 'utf8');
    const swagger = /SwaggerModule\.setup\('([^']+)'[^)]*jsonDocumentUrl: '([^']+)'/.exec(
      bootstrap,
    );
    expect(swagger).not.toBeNull();
    for (const path of [...paths, `/${swagger![1]}`, `/${swagger![2]}`]) {
      const root = path.split('/')[1];
      expect([path, NEST_ROOTS.some((r) => root === r || root.startsWith(r))]).toEqual([
        path,
        true,
      ]);
      expect([path, isNestPath(path.replace(/:[a-z]+/gi, '1'))]).toEqual([path, true]);
    }
  });

  it('every Nest root is reserved, and so is every alias isNestPath would take', () => {
    for (const root of NEST_ROOTS) {
      expect(RESERVED_ALIASES.has(root)).toBe(true);
      expect(isNestPath(`/${root}/x`)).toBe(true);
    }
    for (const alias of ['health2', 'docs-json', 'docsXYZ', 'Api', 'AUTH'])
      expect(isReservedAlias(alias)).toBe(true);
  });

  it('the public prefixes the features register are those declared, and each is reserved', () => {
    const registered = new Set<string>();
    for (const { text } of sources())
      for (const m of text.matchAll(/routes\.register\(\s*'([^']+)'/g)) registered.add(m[1]);
    expect([...registered].sort()).toEqual([...PUBLIC_PREFIXES].sort());
    for (const prefix of PUBLIC_PREFIXES) {
      expect(RESERVED_ALIASES.has(prefix.slice(1, -1))).toBe(true);
      expect(isReservedAlias(prefix.slice(1, -1).toUpperCase())).toBe(true);
    }
  });

  it('PublicRoutes refuses a prefix that could be an alias and is not reserved', () => {
    const routes = new PublicRoutes();
    expect(() => routes.register('/links/', () => undefined)).toThrow(/PUBLIC_PREFIXES/);
    routes.register('/zz/', () => undefined); // two characters: never an alias
    routes.register('/static/', () => undefined); // a reserved word
    expect(routes.match('/static/x')).toBeDefined();
  });

  it('a prefix registered bare also answers without its slash; the dashboard is one, and reserved', () => {
    const routes = new PublicRoutes();
    const app = () => undefined;
    routes.register('/app/', app, { bare: true });
    routes.register('/zz/', () => undefined);
    expect(routes.bare('/app')).toBe(app);
    expect(routes.match('/app/links')).toBe(app);
    expect(routes.bare('/zz')).toBeUndefined();
    expect(routes.bare('/apps')).toBeUndefined();
    expect(PUBLIC_PREFIXES).toContain('/app/');
    for (const alias of ['app', 'APP', 'App']) expect(isReservedAlias(alias)).toBe(true);
  });
});
