/**
 * A start loads only what a start needs (docs/architecture.md §4): the libraries for media, Web
 * Push, mail, HTTP signatures, remote HTML, WebSockets, login throttling, captive DNS, MQTT and
 * serial ports, the migrations' code and the federation inbox wait for their first use. The daemon
 * runs with a preloaded recorder that lists every file it loaded, or with a preloaded blocker that
 * makes a library fail to load, to see the first use that needs it refused at once and clearly.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { basename, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startDaemon, type RunningDaemon } from '../helpers/daemon.js';
import { DIST, tempDir } from '../helpers/paths.js';
import { FIRST_USE_LIBRARIES } from '../../daemon/lib/first-use-libraries.js';

const RECORDER = join(DIST, 'test', 'helpers', 'module-recorder.js');
const BLOCKER = join(DIST, 'test', 'helpers', 'module-blocker.js');

/** The files listed by the recorder: ES modules as file: URLs, CommonJS ones as paths. */
function loadedFiles(log: string): string[] {
  const files = log
    .split('\n')
    .filter((line) => line && !line.startsWith('builtin:') && !line.startsWith('request:'))
    .map((line) => (line.startsWith('file:') ? fileURLToPath(line) : line));
  return [...new Set(files)];
}

/** The CommonJS files a request loaded first, as the recorder lists them. */
function loadedByRequest(log: string): string[] {
  return log
    .split('\n')
    .filter((line) => line.startsWith('request:'))
    .map((line) => line.slice('request:'.length));
}

/** Node's own modules the daemon loaded before serving its first request (`https`, ...), as the recorder lists them. */
function loadedBuiltins(log: string): Set<string> {
  return new Set(
    log
      .split('\n')
      .filter((line) => line.startsWith('builtin:'))
      .map((line) => line.slice('builtin:'.length)),
  );
}

/**
 * Node's modules a start of a set-up box does without: TLS (the peers' client and reachability
 * load it on their first https use), worker threads (the first password hashed) and fetch's undici.
 */
const LATER_BUILTINS = ['https', 'tls', '_tls_wrap', 'worker_threads', 'internal/deps/undici/undici'];

/** The npm packages (`name` or `@scope/name`) the files belong to. */
function packagesOf(files: readonly string[]): Set<string> {
  const names = new Set<string>();
  for (const path of files) {
    const at = path.lastIndexOf('/node_modules/');
    if (at < 0) continue;
    const [first = '', second = ''] = path.slice(at + '/node_modules/'.length).split('/');
    names.add(first.startsWith('@') ? `${first}/${second}` : first);
  }
  return names;
}

const data = tempDir();
/** The box's first start: it makes the instance's keys, the Web Push pair with web-push among them (once per box). */
let first: RunningDaemon;

test.before(async () => {
  first = await startDaemon({ dataDir: data.path });
});
test.after(async () => {
  await first?.stop();
  data.remove();
});

test('with the library there, the first WebSocket upgrade loads it and is accepted', async () => {
  assert.is((await upgrade(first.streamingPort, '/api/v1/streaming?stream=public')).status, 101);
});

test('answers name their media types, from the table loaded at the first answer', async () => {
  const refused = await fetch(`${first.url}/oauth/authorize`);
  assert.is(refused.status, 401);
  assert.is(refused.headers.get('content-type'), 'text/html; charset=utf-8');
  await refused.arrayBuffer();
  const json = await fetch(`${first.url}/api/v1/instance`);
  assert.is(json.headers.get('content-type'), 'application/json; charset=utf-8');
  await json.arrayBuffer();
  const icon = await fetch(`${first.url}/favicon.ico`);
  assert.is(icon.headers.get('content-type'), 'image/x-icon');
  await icon.arrayBuffer();
});

test('a start of a box already set up loads none of the parts kept for their first use', async () => {
  const recording = tempDir('nestbox-modules-');
  const log = join(recording.path, 'modules.log');
  try {
    assert.is(await first.stop(), 0);
    const daemon = await startDaemon({
      dataDir: data.path,
      // The same address: the instance keeps the base URL it began with.
      port: first.port,
      env: { NODE_OPTIONS: `--import=${RECORDER}`, MODULE_RECORDER_LOG: log },
      waitReady: false,
    });
    await daemon.waitForLog((line) => line.msg === 'ready');
    // One answer after READY=1: what it loads is recorded apart from the start's.
    assert.is((await daemon.json('/api/v1/instance')).status, 200);
    assert.is(await daemon.stop(), 0);
    const recorded = readFileSync(log, 'utf8');
    const files = loadedFiles(recorded);
    const builtins = loadedBuiltins(recorded);
    assert.ok(builtins.has('crypto') && builtins.has('child_process'), "Node's own modules are recorded");
    assert.equal(
      LATER_BUILTINS.filter((name) => builtins.has(name)),
      [],
      "Node's modules kept for later, loaded at start",
    );
    const packages = packagesOf(files);
    // Both kinds of module are recorded: the native SQLite binding a start needs, and the bundle.
    assert.ok(packages.has('sqlite3'), 'sqlite3 is recorded');
    assert.ok(files.includes(join(DIST, 'bundle', 'main.js')), "the daemon's bundle is recorded");
    assert.equal(
      FIRST_USE_LIBRARIES.filter((name) => packages.has(name)),
      [],
      'loaded at start',
    );
    // The media types' maps wait for the first answer's Content-Type (scripts/bundle.mjs).
    assert.equal(
      ['mime-types', 'mime-db'].filter((name) => packages.has(name)),
      [],
      'the media types before a request',
    );
    assert.equal(
      ['mime-types', 'mime-db'].filter((name) => packagesOf(loadedByRequest(recorded)).has(name)),
      ['mime-types', 'mime-db'],
      'the media types at the first answer',
    );
    // PostgreSQL's driver is loaded only with NESTBOX_DATABASE_URL (daemon/store/open.ts).
    assert.equal(
      ['pg', 'pg-pool', 'pg-protocol'].filter((name) => packages.has(name)),
      [],
      'the PostgreSQL driver on a SQLite start',
    );
    // The bundle's lazily imported modules are files named after their source (scripts/bundle.mjs).
    const chunks = files.filter((file) => file.startsWith(join(DIST, 'bundle', 'chunks')));
    const named = (pattern: RegExp) => chunks.filter((file) => pattern.test(basename(file)));
    assert.equal(named(/^\d{8}_\d{2}_/), [], 'migrations loaded with none to apply');
    assert.equal(named(/^(handlers|receive)-/), [], 'inbox loaded before a peer delivered');
    assert.equal(named(/^(?!chunk-)/), [], 'only the shared parts of the bundle');
    assert.equal(
      files.filter((file) => file.startsWith(join(DIST, 'daemon') + sep)),
      [],
      'the compiled modules beside the bundle',
    );
  } finally {
    recording.remove();
  }
});

/** A WebSocket upgrade on the streaming port: the HTTP answer when it is refused, or 101. */
function upgrade(port: number, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({
      host: '127.0.0.1',
      port,
      path,
      headers: {
        Connection: 'Upgrade',
        Upgrade: 'websocket',
        'Sec-WebSocket-Version': '13',
        'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==',
      },
    });
    req.on('upgrade', (response, socket) => {
      socket.destroy();
      resolve({ status: response.statusCode ?? 0, body: '' });
    });
    req.on('response', (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        body += chunk;
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

test('a part that cannot be loaded on first use is refused with a clear error, and the daemon keeps serving', async () => {
  const daemon = await startDaemon({ env: { NODE_OPTIONS: `--import=${BLOCKER}`, MODULE_BLOCKER_DENY: 'ws' } });
  try {
    for (let attempt = 1; attempt <= 2; attempt++) {
      const refused = await upgrade(daemon.streamingPort, '/api/v1/streaming?stream=public');
      assert.is(refused.status, 503, `upgrade ${attempt}`);
      assert.equal(JSON.parse(refused.body), { error: 'Streaming over WebSocket is unavailable' });
    }
    const logged = await daemon.waitForLog((line) => line.msg === 'WebSocket upgrade refused');
    assert.match(
      JSON.stringify(logged.error),
      /the WebSocket server \(ws\) could not be loaded: Cannot find package 'ws'/,
    );
    const health = await fetch(`http://127.0.0.1:${daemon.streamingPort}/api/v1/streaming/health`);
    assert.is(await health.text(), 'OK');
    assert.is((await daemon.json('/api/v1/instance')).status, 200);
  } finally {
    assert.is(await daemon.stop(), 0);
  }
});

test.run();
