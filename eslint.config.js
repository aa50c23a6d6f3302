// ESLint: typescript-eslint's type-aware rules for everything tsc compiles, the untyped rules for
// the plain-JS scripts and browser pages, and eslint-config-prettier last so no rule argues with
// the formatter (Prettier owns layout; `npm run lint` runs both).
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import { defineConfig } from 'eslint/config';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const unusedVars = ['error', { argsIgnorePattern: '^_', ignoreRestSiblings: true }];

export default defineConfig(
  { ignores: ['dist/', 'data/', 'coverage/', 'node_modules/', '.tmp/'] },
  {
    files: ['**/*.ts', '**/*.cts'],
    extends: [js.configs.recommended, tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': unusedVars,
      // Off: an async function without await is how this code implements a Promise-returning
      // interface (transports, hooks, test doubles, no-op `next`): async turns a throw into the
      // rejection its callers handle. Unawaited promises are no-floating-promises' job.
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    // The daemon runs both as compiled modules and as one bundle (scripts/bundle.mjs): a path
    // counted from a module's own location is wrong in one of them. install-paths.ts finds the
    // installation's files for everyone.
    files: ['daemon/**/*.ts'],
    ignores: ['daemon/install-paths.ts', 'daemon/lib/on-first-use.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "MetaProperty[meta.name='import'][property.name='meta']",
          message: 'Find installation files with installPath() (daemon/install-paths.ts), not from import.meta.url.',
        },
      ],
    },
  },
  {
    // Tests read the JSON bodies the server sends as `any` on purpose and assert on their shape:
    // typing every response would restate the serializers, and the assertions already fail on the
    // mistakes these rules guard against. The daemon and scripts keep them.
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    extends: [js.configs.recommended],
    languageOptions: { globals: globals.node },
    rules: { 'no-unused-vars': unusedVars },
  },
  {
    // The pages' scripts load with a plain <script> tag and keep to ES5 for old phone browsers,
    // where a catch clause needs its binding even when nothing reads it.
    files: ['web/**/*.js'],
    // showFieldErrors: web/forms/field-errors.js, loaded before the page's own script.
    languageOptions: {
      ecmaVersion: 5,
      sourceType: 'script',
      globals: { ...globals.es2015, ...globals.browser, showFieldErrors: 'readonly' },
    },
    rules: { 'no-unused-vars': ['error', { ...unusedVars[1], caughtErrors: 'none' }] },
  },
  {
    // A file a reader can hold: split a longer one along what its parts do.
    files: ['daemon/**/*.{ts,cts}', 'scripts/**/*.{ts,js,mjs}', 'web/**/*.js'],
    rules: { 'max-lines': ['error', { max: 500, skipBlankLines: false, skipComments: false }] },
  },
  prettier,
);
