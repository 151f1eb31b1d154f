import { fileURLToPath } from 'node:url';

import { defineConfig } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));

/**
 * The dashboard (docs/dashboard.md): built into dist/apps/web with hashed asset names under
 * /app/assets/, which the api serves as immutable files (apps/api/src/dashboard). No inline
 * script or style anywhere in the output: the page's CSP allows neither.
 */
export default defineConfig({
  root,
  base: '/app/',
  oxc: { jsx: { runtime: 'automatic' } },
  build: {
    outDir: fileURLToPath(new URL('../../dist/apps/web', import.meta.url)),
    emptyOutDir: true,
    assetsDir: 'assets',
    // an asset of any size is a file of its own: a data: URL would be inline content
    assetsInlineLimit: 0,
    target: 'es2022',
    sourcemap: false,
  },
});
