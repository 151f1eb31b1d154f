import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

/** Runs a node script of this checkout's node_modules (a bin of an installed package). */
export const runNode = promisify(execFile);

/** The path of `path` inside this checkout's node_modules. */
export const moduleBin = (path: string) =>
  join(resolve(__dirname, '..', '..'), 'node_modules', path);

/**
 * Compiles `files` of `dir` with `tsc --strict` (ES2022, node16 modules, DOM types, output in
 * `dir/out`), as a client of the OpenAPI document would be: the answer is tsc's report, empty
 * when the code compiles with no error.
 */
export async function compileStrict(dir: string, files: string[]): Promise<string> {
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        target: 'ES2022',
        module: 'node16',
        moduleResolution: 'node16',
        esModuleInterop: true,
        skipLibCheck: true,
        lib: ['ES2022', 'DOM'],
        outDir: 'out',
      },
      files,
    }),
  );
  const tsc = await runNode(
    process.execPath,
    [moduleBin('typescript/bin/tsc'), '-p', 'tsconfig.json'],
    { cwd: dir },
  ).catch((err: { stdout?: string }) => err);
  return tsc.stdout ?? '';
}
