import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** Settings are read in one place (libs/config): a bad value must stop the process naming it. */
const NO_PROCESS_ENV = [
  'error',
  {
    object: 'process',
    property: 'env',
    message: 'Read settings through AppConfig (libs/config), where they are validated at start.',
  },
];

/** Import boundaries (docs/architecture.md#floors-and-the-lint-rules): libs never reach into apps, the two apps never into each other. */
const boundaries = (...patterns) => ['error', { patterns }];
const LIB_ALIASES = {
  group: ['**/libs/*/src', '**/libs/*/src/**', '@app/*/src', '@app/*/src/**'],
  message: 'Use a lib through its alias and index (@app/<lib>), not its files.',
};

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'storage/**', 'bench-results/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-require-imports': 'off',
    },
  },
  {
    files: ['apps/**/*.ts', 'libs/**/*.ts'],
    ignores: ['libs/config/src/**', '**/*.spec.ts'],
    rules: { 'no-restricted-properties': NO_PROCESS_ENV },
  },
  {
    files: ['libs/**/*.ts'],
    rules: {
      'no-restricted-imports': boundaries(
        { group: ['**/apps/**'], message: 'A lib never imports an app.' },
        { group: ['../../*/src', '../../*/src/**'], message: 'Use another lib through @app/<lib>.' },
      ),
    },
  },
  {
    files: ['apps/worker/**/*.ts'],
    rules: {
      'no-restricted-imports': boundaries(
        { group: ['**/api/src/**'], message: 'The worker never imports the api.' },
        LIB_ALIASES,
      ),
    },
  },
  {
    files: ['apps/api/**/*.ts'],
    rules: {
      'no-restricted-imports': boundaries(
        { group: ['**/worker/src/**'], message: 'The api never imports the worker.' },
        LIB_ALIASES,
        {
          group: ['../*/dto/*', '../*/*.controller'],
          message: "A feature's DTOs and controllers are its own: share through its module's providers.",
        },
      ),
    },
  },
  {
    files: ['apps/web/**/*.ts', 'apps/web/**/*.tsx', 'apps/web/**/*.mts'],
    rules: {
      'no-restricted-imports': boundaries({
        group: ['@app/*', '**/libs/**', '**/api/src/**', '**/worker/src/**'],
        message: 'The dashboard runs in a browser and speaks only the public API (apps/web/src/api.ts).',
      }),
    },
  },
  {
    files: ['**/*.js', '**/*.cjs'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: { require: 'readonly', module: 'writable', process: 'readonly', __dirname: 'readonly', console: 'readonly' },
    },
  },
);
