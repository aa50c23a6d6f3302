/**
 * NESTBOX_DATABASE_URL: a bad URL and a server that refuses or stays silent end the start with
 * exit 2 and one line naming the setting; with the setting given, the daemon runs on PostgreSQL
 * and never opens or makes the SQLite file.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { loadConfig, ConfigError } from '../../daemon/config.js';
import { openStore } from '../../daemon/store/open.js';
import { startDaemon } from '../helpers/daemon.js';
import { daemonCommand, tempDir } from '../helpers/paths.js';
import { databaseUrl } from '../helpers/postgres-cluster.js';
import { createPostgresDatabase, type TestPostgres } from '../helpers/postgres-database.js';

let database: TestPostgres | null = null;
test.after(() => database?.drop());

/** Runs the daemon to its exit with `env` added; its exit code, stderr and the data folder's files. */
function startRefused(env: Record<string, string>): { status: number | null; lines: string[]; files: string[] } {
  const data = tempDir();
  try {
    const launch = daemonCommand();
    const result = spawnSync(launch.command, launch.args, {
      env: { ...launch.env, PATH: process.env.PATH, NESTBOX_DATA_DIR: data.path, ...env },
      encoding: 'utf8',
      timeout: 20_000,
    });
    return { status: result.status, lines: result.stderr.trim().split('\n'), files: readdirSync(data.path) };
  } finally {
    data.remove();
  }
}

test('a URL that is not a postgres:// one is a bad setting, its login left out of the message', () => {
  for (const bad of ['mysql://u@h/db', 'postgres://u:secret@/db', 'postgres://h:5432', 'not a url'])
    assert.throws(
      () => loadConfig({ env: { NESTBOX_DATABASE_URL: bad } }),
      (error: Error) =>
        error instanceof ConfigError && /NESTBOX_DATABASE_URL/.test(error.message) && !error.message.includes('secret'),
    );
  assert.is(loadConfig({ env: {} }).databaseUrl, null);
  assert.is(loadConfig({ env: { NESTBOX_DATABASE_URL: '' } }).databaseUrl, null);
  const socket = 'postgres://nestbox@localhost/nestbox?host=/run/postgresql';
  assert.is(loadConfig({ env: { NESTBOX_DATABASE_URL: socket } }).databaseUrl, socket);
});

test('the daemon given a bad URL exits 2 with one line naming the setting, and makes no SQLite file', () => {
  const { status, lines, files } = startRefused({ NESTBOX_DATABASE_URL: 'postgres://owner:hunter22@/nestbox' });
  assert.is(status, 2);
  assert.is(lines.length, 1);
  assert.match(lines[0], /NESTBOX_DATABASE_URL/);
  assert.not.match(lines[0], /hunter22/);
  assert.equal(files, []);
});

test('a server that refuses (no such database) ends the start at once with exit 2 naming the setting', async () => {
  database = await createPostgresDatabase();
  const missing = databaseUrl(database.url, 'no_such_database');
  const started = Date.now();
  const { status, lines, files } = startRefused({ NESTBOX_DATABASE_URL: missing });
  assert.is(status, 2);
  assert.is(lines.length, 1);
  assert.match(lines[0], /NESTBOX_DATABASE_URL/);
  assert.match(lines[0], /no_such_database/);
  assert.ok(Date.now() - started < 15_000, 'a refusal is not waited out');
  assert.not.ok(
    files.some((name) => name.includes('sqlite')),
    `no SQLite file: ${files.join(', ')}`,
  );
});

test('a server that does not answer is waited for up to the deadline, then a config error naming the setting', async () => {
  const empty = tempDir();
  try {
    const config = {
      ...loadConfig({ env: { NESTBOX_DATA_DIR: empty.path } }),
      databaseUrl: `postgres://nestbox@localhost/nestbox?host=${encodeURIComponent(empty.path)}`,
    };
    const started = Date.now();
    const error = await openStore(config, { deadlineMs: 1500 }).then(
      () => null,
      (refusal: unknown) => refusal,
    );
    const waited = Date.now() - started;
    assert.instance(error, ConfigError);
    assert.match((error as ConfigError).message, /NESTBOX_DATABASE_URL.*no answer within 2 s/);
    assert.ok(waited >= 1400 && waited < 6000, `waited ${waited} ms`);
    assert.equal(readdirSync(empty.path), []);
  } finally {
    empty.remove();
  }
});

test('with the setting, the daemon starts on PostgreSQL, answers /healthz and never makes the SQLite file', async () => {
  database ??= await createPostgresDatabase();
  const daemon = await startDaemon({ env: { NESTBOX_DATABASE_URL: database.url } });
  try {
    const health = await daemon.json<{ components: { database: { status: string } } }>('/healthz');
    assert.is(health.status, 200);
    assert.is(health.body.components.database.status, 'ok');
    // The instance's records are read on PostgreSQL (what is ported so far: docs/architecture.md §8.3).
    const instance = await daemon.json<{ domain: string }>('/api/v2/instance');
    assert.is(instance.status, 200);
    assert.ok(instance.body.domain);
    assert.equal(
      readdirSync(daemon.dataDir).filter((name) => name.includes('sqlite')),
      [],
    );
  } finally {
    assert.is(await daemon.stop(), 0);
  }
});

test.run();
