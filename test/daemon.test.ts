import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { startDaemon, type RunningDaemon } from './helpers/daemon.js';
import { daemonCommand, DIST, tempDir } from './helpers/paths.js';

test('the daemon starts with embedded defaults and answers /healthz without secrets', async () => {
  const daemon = await startDaemon({ env: { NESTBOX_MQTT_PASSWORD: 'hunter2-secret' }, freshDatabase: true });
  try {
    const { status, body, headers } = await daemon.json('/healthz');
    assert.is(status, 200);
    assert.is(body.status, 'ok');
    assert.is(body.components.database.status, 'ok');
    assert.is(body.components.http.status, 'ok');
    assert.is(headers.get('cache-control'), 'no-store');
    assert.ok(existsSync(join(daemon.dataDir, 'nestbox.sqlite3')));
    assert.ok(
      daemon.logs.some((line) => line.msg === 'migrations applied'),
      'a first start migrates',
    );
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

test('a start and a stop with the simulated coprocessor warn of nothing, though its boot and the stop cut operations short', async () => {
  const warnings = (daemon: RunningDaemon) =>
    daemon.logs.filter((line) => line.level === 'warn' || line.level === 'error').map((line) => line.msg);
  const first = await startDaemon();
  try {
    // The simulated chip powers up as the link opens and announces its boot after the first request went out.
    const cut = await first.waitForLog((line) => line.msg === 'coprocessor initialisation cut short');
    assert.match(String(cut.error), /restarted before answering/);
    await first.waitForLog((line) => line.msg === 'coprocessor did not answer a probe');
    await first.waitForLog((line) => line.msg === 'connectivity starting → setup_ap');
  } finally {
    // During the setup access point's first scan, which takes the simulated chip 1.2 s.
    assert.is(await first.stop(), 0);
  }
  const apCut = first.logs.find((line) => line.msg === 'setup access point start cut short');
  assert.match(String(apCut?.error), /the daemon is stopping/);
  assert.not.ok(
    first.logs.some((line) => line.msg === 'setup access point started'),
    'a stopping daemon sends the chip no new request',
  );
  assert.equal(warnings(first), []);
  // Stopped while the documented firmware's silence to the version probe is awaited.
  const second = await startDaemon();
  try {
    await second.waitForLog((line) => line.msg === 'coprocessor (re)started');
  } finally {
    assert.is(await second.stop(), 0);
  }
  assert.ok(second.logs.some((line) => line.msg === 'stopped'));
  assert.not.ok(
    second.logs.some((line) => line.msg === 'coprocessor initialised'),
    'stopped before the end',
  );
  assert.equal(warnings(second), []);
});

test('the launcher execs Node on the entry with glibc malloc and V8 heap growth tuned; tunables already given win', () => {
  const dir = tempDir();
  try {
    // A stand-in for node that prints its process id, what glibc would read, and its arguments.
    const fakeNode = join(dir.path, 'node');
    writeFileSync(fakeNode, '#!/bin/sh\necho "$$|$GLIBC_TUNABLES|$*"\n', { mode: 0o755 });
    const launch = daemonCommand(['--config', 'site.json']);
    const run = spawnSync(launch.command, launch.args, {
      env: { PATH: process.env.PATH, NODE: fakeNode, GLIBC_TUNABLES: 'glibc.malloc.trim_threshold=4194304' },
      encoding: 'utf8',
    });
    assert.is(run.status, 0, run.stderr);
    const [pid, tunables, args] = run.stdout.trim().split('|');
    assert.is(Number(pid), run.pid, 'exec: the daemon keeps the process systemd started');
    assert.is(
      tunables,
      'glibc.malloc.trim_threshold=8388608:glibc.malloc.mmap_threshold=1048576:glibc.malloc.arena_max=2:glibc.malloc.trim_threshold=4194304',
    );
    const [heapGrowth, semiSpace, entry, ...rest] = args.split(' ');
    assert.is(heapGrowth, '--heap-growing-percent=50');
    assert.is(semiSpace, '--max-semi-space-size=8');
    assert.is(resolve(entry), join(DIST, 'bundle', 'entry.cjs'));
    assert.equal(rest, ['--config', 'site.json']);
  } finally {
    dir.remove();
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
