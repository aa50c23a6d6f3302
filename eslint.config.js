// ESLint: typescript-eslint's type-aware rules for everything tsc compiles, the untyped rules for
// the plain-JS scripts and browser pages, and eslint-config-prettier last so no rule argues with
// the formatter (Prettier owns layout; `npm run lint` runs both).
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import { defineConfig } from 'eslint/config';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const unusedVars = ['error', { argsIgnorePattern: '^_', ignoreRestSiblings: true }];

const noImportMeta = {
  selector: "MetaProperty[meta.name='import'][property.name='meta']",
  message: 'Find installation files with installPath() (daemon/install-paths.ts), not from import.meta.url.',
};

const SQL_START = '/^\\s*(SELECT|INSERT|UPDATE|DELETE|WITH|PRAGMA|VACUUM|REPLACE)\\s/';
const inRepo = 'SQL lives only in repositories (a *repo.ts beside the service): move the statement there.';
const sqlOnlyInRepositories = [
  { selector: `Literal[value=${SQL_START}]`, message: inRepo },
  { selector: `TemplateLiteral > TemplateElement:first-child[value.raw=${SQL_START}]`, message: inRepo },
  { selector: "CallExpression[callee.property.name='raw'][arguments.length>0]", message: inRepo },
  { selector: 'CallExpression[callee.name=/^(trx|tx|db|knex)$/]', message: inRepo },
  { selector: "CallExpression[callee.property.name='db']", message: inRepo },
];

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
    rules: { 'no-restricted-syntax': ['error', noImportMeta] },
  },
  {
    // SQL lives only in repositories (docs/architecture.md §8.1): anywhere else in the daemon a
    // statement, a raw call or a knex table builder fails the lint. The store itself, the social
    // side's prepared reader and paging SQL, the visibility rule's expression and the render
    // cache's version reads are the parts repositories build on.
    files: ['daemon/**/*.ts'],
    ignores: [
      'daemon/install-paths.ts',
      'daemon/lib/on-first-use.ts',
      'daemon/**/*repo*.ts',
      'daemon/store/**',
      'daemon/social/store/**',
      'daemon/social/statuses/visibility.ts',
      'daemon/social/render/changed-rows.ts',
    ],
    rules: { 'no-restricted-syntax': ['error', noImportMeta, ...sqlOnlyInRepositories] },
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
    // uvu's own named suites miss the runner's preloads (a failing hook shown, a stopped file's test named).
    files: ['test/**/*.ts'],
    ignores: ['test/helpers/named-suite.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { paths: [{ name: 'uvu', importNames: ['suite'], message: 'Use test/helpers/named-suite.ts.' }] },
      ],
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
