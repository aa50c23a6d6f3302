#!/usr/bin/env node
// Bundles the compiled daemon (dist/daemon/main.js) into dist/bundle/ with esbuild: Node's module
// loader resolves, reads and compiles each of the daemon's and its libraries' hundreds of files
// one by one, and that was most of the start-up's CPU time. The parts a start does not need stay
// out of the start's file: the libraries loaded on first use and the native ones are left to
// node_modules, and the daemon's own lazily imported modules (migrations, the federation inbox)
// become files of their own under the same folders as in dist/daemon/. Run by scripts/setup.mjs
// after TypeScript; the tests import dist/daemon/ directly and start the daemon through the bundle.
// The command-line tools (`npm run admin`, `coproc`, `ota`, `sim`: dist/bundle/<tool>.js) and the
// admin tool (dist/bundle/social/admin.js, which the tests use) are entries sharing the daemon's
// chunks: a tool's process loads knex, protobufjs and the services as a few files, not knex's and
// lodash's hundreds.
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { FIRST_USE_LIBRARIES } = await import(
  pathToFileURL(join(root, 'dist', 'daemon', 'lib', 'first-use-libraries.js')).href
);

const compiled = join(root, 'dist', 'daemon');
const out = join(root, 'dist', 'bundle');

/** Native addons (loaded from node_modules by their own loaders), and the libraries kept for first use. */
const OUTSIDE = ['sqlite3', '@serialport/*', ...FIRST_USE_LIBRARIES];
/** Database drivers knex can load: left in node_modules (`pg` is loaded from there only with NESTBOX_DATABASE_URL). */
const OTHER_DRIVERS = [
  'better-sqlite3',
  'mysql',
  'mysql2',
  'mariadb',
  'mariadb/*',
  'pg',
  'pg-query-stream',
  'pg-native',
  'oracledb',
  'tedious',
];

/**
 * Libraries that koa's dependencies each bring in their own copy, resolved to the one at the top of
 * node_modules so a start evaluates each once. `http-assert` brings http-errors 1.8 (with statuses
 * 1.5), whose load makes a class for each HTTP error as koa's http-errors 2 does: it uses koa's (the
 * same `createError`).
 */
const oneCopyEach = {
  name: 'one-copy-each',
  setup(builder) {
    const resolve = createRequire(join(root, 'package.json')).resolve;
    builder.onResolve({ filter: /^http-errors$/ }, ({ path }) => ({ path: resolve(path) }));
  },
};

/**
 * mime-types builds its maps of every media type in mime-db as it loads, which koa, `accepts` and
 * `type-is` need only to answer a request. They get a stand-in with the same functions, which
 * requires mime-types from node_modules at the first call: the one at the top of node_modules, so
 * the newer pair (mime-types 3, mime-db 1.54) serves them all, `accepts`'s own older copy too (same
 * API; it only looks up short names such as `json` and `html`).
 */
const mimeTypesOnFirstUse = {
  name: 'mime-types-on-first-use',
  setup(builder) {
    builder.onResolve({ filter: /^mime-types$/ }, ({ namespace }) =>
      namespace === 'first-use'
        ? { path: 'mime-types', external: true }
        : { path: 'mime-types', namespace: 'first-use' },
    );
    builder.onLoad({ filter: /^mime-types$/, namespace: 'first-use' }, () => ({
      contents: `let library = null;
const mime = () => (library ??= require('mime-types'));
module.exports = {
  charset: (type) => mime().charset(type),
  charsets: { lookup: (type) => mime().charset(type) },
  contentType: (text) => mime().contentType(text),
  extension: (type) => mime().extension(type),
  lookup: (path) => mime().lookup(path),
  get extensions() { return mime().extensions; },
  get types() { return mime().types; },
};`,
      loader: 'js',
    }));
  },
};

/**
 * knex names every dialect it has in one table of loaders (knex/lib/dialects/index.js); a start
 * uses SQLite's. The others (a seventh of the bundle a start compiles) stay in node_modules, where
 * knex's loader still finds them: PostgreSQL's when NESTBOX_DATABASE_URL is set.
 */
const onlySqliteDialect = {
  name: 'only-sqlite-dialect',
  setup(builder) {
    builder.onResolve({ filter: /^\.\/[\w-]+$/ }, ({ path, importer }) => {
      if (!/[\\/]knex[\\/]lib[\\/]dialects[\\/]index\.js$/.test(importer) || path === './sqlite3') return undefined;
      return { path: `knex/lib/dialects/${path.slice(2)}`, external: true };
    });
  },
};

/**
 * JSON files that libraries require become
 * `JSON.parse('…')` instead of esbuild's object literal: V8 reads a JSON string much faster than
 * it parses and compiles the same object as code, and it runs once.
 */
const jsonAsParse = {
  name: 'json-as-parse',
  setup(builder) {
    builder.onLoad({ filter: /[\\/]node_modules[\\/].*\.json$/ }, ({ path }) => ({
      contents: `module.exports = JSON.parse(${JSON.stringify(JSON.stringify(JSON.parse(readFileSync(path, 'utf8'))))});`,
      loader: 'js',
    }));
  },
};

await build({
  entryPoints: [
    join(compiled, 'main.js'),
    join(compiled, 'social', 'admin.js'),
    // The command-line tools: each run loads a few files instead of their modules one by one.
    ...['admin', 'coproc', 'ota', 'sim'].map((tool) => ({
      in: join(root, 'dist', 'scripts', `${tool}.js`),
      out: tool,
    })),
  ],
  outdir: out,
  outbase: compiled,
  entryNames: '[dir]/[name]',
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: [...OUTSIDE, ...OTHER_DRIVERS],
  plugins: [oneCopyEach, mimeTypesOnFirstUse, onlySqliteDialect, jsonAsParse],
  // Bundled CommonJS libraries call require() for Node's own modules.
  banner: {
    js: "import { createRequire as createRequireForBundle } from 'node:module'; const require = createRequireForBundle(import.meta.url);",
  },
  // Whitespace out and syntax shortened (names kept, so stack traces and profiles still name
  // functions): a start reads, decodes and pre-parses a third less, and the sources V8 keeps for
  // lazy compiling take a third less memory.
  minifyWhitespace: true,
  minifySyntax: true,
  // Every character outside ASCII escaped (template literals too): one such character makes V8
  // decode and keep the whole file as a two-byte string, twice the memory of its source.
  charset: 'ascii',
  logLevel: 'warning',
});
// The entry that sizes the thread pool before any module loads, next to the bundle's main.js.
copyFileSync(join(compiled, 'entry.cjs'), join(out, 'entry.cjs'));

// The link's schema as protobufjs's JSON descriptor, read at start instead of parsing the .proto
// (proto/ctrl.proto stays the source: the descriptor names the file's hash, daemon/coproc/schema.ts).
const schema = await import(pathToFileURL(join(compiled, 'coproc', 'schema.js')).href);
mkdirSync(dirname(schema.WIRE_DESCRIPTOR_PATH), { recursive: true });
const descriptor = JSON.stringify(schema.describeWire(readFileSync(schema.PROTO_PATH, 'utf8')));
writeFileSync(schema.WIRE_DESCRIPTOR_PATH, `${descriptor}\n`);
