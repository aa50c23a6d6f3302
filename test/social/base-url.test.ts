/**
 * One configuration for the daemon and the admin tool, and one base URL for the instance: stored
 * at the first start, refused (exit 2, both URLs named) when a command or a later start gives
 * another, moved only by `npm run admin -- set-base-url`.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startDaemon, type RunningDaemon } from '../helpers/daemon.js';
import { freePort } from '../helpers/ports.js';
import { tempDir } from '../helpers/paths.js';
import { placePostgresDatabase, testEngine } from '../helpers/daemon-database.js';

const data = tempDir();
const configFile = join(data.path, 'nestbox.json');
/** Only the settings file: none of the helper's NESTBOX_* variables. */
const FILE_ONLY = {
  NESTBOX_DATA_DIR: undefined,
  NESTBOX_HTTP_HOST: undefined,
  NESTBOX_HTTP_PORT: undefined,
  NESTBOX_STREAMING_PORT: undefined,
  NESTBOX_BASE_URL: undefined,
  NESTBOX_CONFIG: configFile,
};

/** On PostgreSQL (TEST_ENGINE), the instance's database, named in the settings file as the box's would be. */
let databaseUrl: string | null = null;

async function writeSettings(port: number, baseUrl: string | null): Promise<void> {
  const settings: Record<string, unknown> = {
    data_dir: data.path,
    http_host: '127.0.0.1',
    http_port: port,
    streaming_port: await freePort(),
  };
  if (baseUrl) settings.base_url = baseUrl;
  if (databaseUrl) settings.database_url = databaseUrl;
  writeFileSync(configFile, JSON.stringify(settings));
}

function admin(args: string[], env: Record<string, string> = {}) {
  // Asynchronous, so this process keeps serving the daemon's sockets while the tool runs.
  return new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      ['dist/bundle/admin.js', ...args],
      { env: { PATH: process.env.PATH, ...env } },
      (error, stdout, stderr) =>
        resolve({ status: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr }),
    );
  });
}

const createAccount = (username: string, env: Record<string, string>, options: string[] = []) =>
  admin(
    [
      'create-account',
      ...options,
      '--username',
      username,
      '--email',
      `${username}@example.test`,
      '--password',
      'long enough pw',
    ],
    env,
  );

async function actorId(daemon: RunningDaemon, username: string): Promise<string | number> {
  const response = await daemon.fetch(`/users/${username}`, { headers: { accept: 'application/activity+json' } });
  return response.ok ? ((await response.json()) as { id: string }).id : response.status;
}

let daemon: RunningDaemon | null = null;
let port = 0;
let url = '';

test.before(async () => {
  port = await freePort();
  url = `http://127.0.0.1:${port}`;
  if (testEngine() === 'postgres') databaseUrl = await placePostgresDatabase(data.path);
  await writeSettings(port, url);
  daemon = await startDaemon({ dataDir: data.path, port, env: FILE_ONLY });
});

test.after(async () => {
  await daemon?.stop();
  data.remove();
});

test('the admin tool with the daemon’s settings file makes accounts under its base URL', async () => {
  const withFile = await createAccount('same_file', {}, ['--config', configFile]);
  assert.is(withFile.status, 0, withFile.stderr);
  assert.is(await actorId(daemon!, 'same_file'), `${url}/users/same_file`);
  const viaVariable = await createAccount('via_variable', { NESTBOX_CONFIG: configFile });
  assert.is(viaVariable.status, 0, viaVariable.stderr);
  assert.is(await actorId(daemon!, 'via_variable'), `${url}/users/via_variable`);
});

test('the admin tool given another base URL refuses, naming both, and makes nothing', async () => {
  const other = 'https://elsewhere.example';
  const refused = await createAccount('wrong_url', { NESTBOX_CONFIG: configFile, NESTBOX_BASE_URL: other });
  assert.is(refused.status, 2);
  assert.match(refused.stderr, url);
  assert.match(refused.stderr, other);
  assert.match(refused.stderr, 'set-base-url');
  assert.is(refused.stdout, '');
  assert.is(await actorId(daemon!, 'wrong_url'), 404);
  // A bad setting is refused the daemon's way too: the same message form and exit code.
  const bad = await createAccount('bad_port', { NESTBOX_CONFIG: configFile, NESTBOX_HTTP_PORT: 'eighty' });
  assert.is(bad.status, 2);
  assert.match(bad.stderr, /^config: NESTBOX_HTTP_PORT="eighty" \(environment\) is not allowed/);
});

test('the admin tool given only the data directory uses the stored base URL', async () => {
  // (On PostgreSQL the database's URL with it: the data directory holds no database there.)
  const created = await createAccount('data_dir_only', {
    NESTBOX_DATA_DIR: data.path,
    ...(databaseUrl && { NESTBOX_DATABASE_URL: databaseUrl }),
  });
  assert.is(created.status, 0, created.stderr);
  assert.is(await actorId(daemon!, 'data_dir_only'), `${url}/users/data_dir_only`);
});

test('a daemon started with another base URL refuses with both named; set-base-url moves the instance', async () => {
  assert.is(await daemon!.stop(), 0);
  daemon = null;
  const newPort = await freePort();
  const newUrl = `http://127.0.0.1:${newPort}`;
  await writeSettings(newPort, newUrl);
  const refused = await startDaemon({ dataDir: data.path, port: newPort, env: FILE_ONLY, waitReady: false });
  const { code } = await refused.exited;
  assert.is(code, 2);
  assert.match(refused.stderr(), `config: base_url="${newUrl}" (${configFile}) is not allowed`);
  assert.match(refused.stderr(), `this instance's base URL is ${url}`);
  assert.match(refused.stderr(), `set-base-url ${newUrl}`);

  const bad = await admin(['set-base-url', 'ftp://x.example', '--config', configFile]);
  assert.is(bad.status, 1);
  assert.match(bad.stderr, 'not a base URL');
  const moved = await admin(['set-base-url', newUrl, '--config', configFile]);
  assert.is(moved.status, 0, moved.stderr);
  assert.match(moved.stdout, `is now ${newUrl} (was ${url})`);

  daemon = await startDaemon({ dataDir: data.path, port: newPort, env: FILE_ONLY });
  assert.is(await actorId(daemon, 'same_file'), `${newUrl}/users/same_file`);
  const finger = await daemon.json(`/.well-known/webfinger?resource=acct:same_file@127.0.0.1:${newPort}`);
  assert.is(finger.status, 200);
  assert.ok(
    finger.body.links.some((link: { href?: string }) => link.href === `${newUrl}/users/same_file`),
    JSON.stringify(finger.body),
  );
  // And the old address is refused from now on.
  const old = await createAccount('old_url', { NESTBOX_CONFIG: configFile, NESTBOX_BASE_URL: url });
  assert.is(old.status, 2);
});

test.run();
