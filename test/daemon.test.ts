import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { startDaemon } from './helpers/daemon.js';

test('the daemon starts with embedded defaults and answers /healthz without secrets', async () => {
  const daemon = await startDaemon({ env: { NESTBOX_MQTT_PASSWORD: 'hunter2-secret' } });
  try {
    const { status, body, headers } = await daemon.json('/healthz');
    assert.is(status, 200);
    assert.is(body.status, 'ok');
    assert.is(body.components.database.status, 'ok');
    assert.is(body.components.http.status, 'ok');
    assert.is(headers.get('cache-control'), 'no-store');
    assert.ok(existsSync(join(daemon.dataDir, 'nestbox.sqlite3')));
    const mastodonHealth = await fetch(`${daemon.url}/health`);
    assert.is(await mastodonHealth.text(), 'OK', "Mastodon's /health for uptime monitors");
    const ready = await daemon.waitForLog((line) => line.msg === 'ready');
    assert.is(ready.url, daemon.url);
    assert.not.match(JSON.stringify(daemon.logs), /hunter2-secret/);
    assert.equal(daemon.rawLines, []);
  } finally {
    assert.is(await daemon.stop(), 0);
  }
});

test('unknown paths answer 404 in the Mastodon error shape', async () => {
  const daemon = await startDaemon();
  try {
    const { status, body } = await daemon.json('/api/v1/nothing-here');
    assert.is(status, 404);
    assert.equal(body, { error: 'Not found' });
  } finally {
    await daemon.stop();
  }
});

test.run();
