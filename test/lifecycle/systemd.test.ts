import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startDaemon, type RunningDaemon } from '../helpers/daemon.js';
import { startNotifyListener, type NotifyListener } from '../helpers/notify-socket.js';
import { createNotifier } from '../../daemon/lifecycle/systemd.js';
import { Watchdog } from '../../daemon/lifecycle/watchdog.js';
import { Logger } from '../../daemon/log/logger.js';
import { tempDir } from '../helpers/paths.js';
import { join } from 'node:path';

const quiet = new Logger('silent');

/** One daemon for READY, WATCHDOG and (last, as it stops it) STOPPING: none needs a fresh one. */
let listener: NotifyListener;
let daemon: RunningDaemon;

test.before(async () => {
  listener = await startNotifyListener();
  daemon = await startDaemon({ env: { NOTIFY_SOCKET: listener.path, WATCHDOG_USEC: '400000' } });
});
test.after(async () => {
  await daemon?.stop();
  await listener?.close();
});

test('READY=1 comes once the daemon has started, with a one-line STATUS and the MAINPID', async () => {
  const ready = await listener.waitFor((m) => m.READY === '1');
  assert.is(ready.MAINPID, String(daemon.child.pid));
  assert.ok(ready.STATUS && !ready.STATUS.includes('\n'));
  // READY=1 must not precede the HTTP server: by then /healthz answers.
  const readyLog = await daemon.waitForLog((line) => line.msg === 'ready');
  const listening = daemon.logs.findIndex((line) => String(line.msg).startsWith('Nestbox is listening'));
  assert.ok(listening >= 0 && listening < daemon.logs.indexOf(readyLog));
});

test('WATCHDOG=1 arrives every WATCHDOG_USEC/2 while the daemon is healthy', async () => {
  await listener.waitFor((m) => m.READY === '1');
  const from = listener.messages.length;
  const pings = () => listener.messages.slice(from).filter((m) => m.WATCHDOG === '1').length;
  // At one each 200 ms, three come well within 1.2 s.
  const deadline = Date.now() + 1200;
  while (pings() < 3 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  assert.ok(pings() >= 3, `expected several pings in 1.2 s at 200 ms, got ${pings()}`);
});

test('STOPPING=1 is sent on SIGTERM before the daemon exits 0', async () => {
  const code = await daemon.stop('SIGTERM');
  assert.is(code, 0);
  const stopping = listener.messages.find((m) => m.STOPPING === '1');
  assert.ok(stopping, 'STOPPING=1 received');
  assert.match(stopping.STATUS ?? '', /stopping/);
});

/** A listener and a notifier sending to it; the socket is also in this process's environment, where systemd-notify finds it. */
async function listenerInEnv(options: { abstract?: boolean } = {}) {
  const listener = await startNotifyListener(options);
  process.env.NOTIFY_SOCKET = listener.path;
  return {
    listener,
    notifier: createNotifier(process.env, quiet),
    close: async () => {
      delete process.env.NOTIFY_SOCKET;
      await listener.close();
    },
  };
}

test('a failing health check sends no WATCHDOG=1', async () => {
  const { listener, notifier, close } = await listenerInEnv();
  try {
    let databaseAnswers = false;
    const watchdog = new Watchdog({
      env: { WATCHDOG_USEC: '100000' },
      log: quiet,
      ping: () => notifier.watchdog(),
      databaseAnswers: async () => databaseAnswers,
    });
    assert.is(await watchdog.tick(), false);
    await notifier.flush();
    assert.is(listener.messages.filter((m) => m.WATCHDOG === '1').length, 0);
    databaseAnswers = true;
    assert.is(await watchdog.tick(), true);
    await listener.waitFor((m) => m.WATCHDOG === '1');
  } finally {
    await close();
  }
});

test('STATUS= follows changes and is not repeated when the line is unchanged', async () => {
  const { listener, notifier, close } = await listenerInEnv();
  try {
    await notifier.ready('starting');
    await notifier.status('online via HomeNet');
    await notifier.status('online via HomeNet');
    await notifier.status('setup mode:\njoin "Nestbox-1a2b"');
    await notifier.flush();
    await listener.waitFor((m) => m.STATUS === 'setup mode: join "Nestbox-1a2b"');
    assert.equal(
      listener.messages.filter((m) => 'STATUS' in m).map((m) => m.STATUS),
      ['starting', 'online via HomeNet', 'setup mode: join "Nestbox-1a2b"'],
    );
  } finally {
    await close();
  }
});

test('to a socket file the process sends the datagrams itself: no systemd-notify is run', async () => {
  const { listener, notifier, close } = await listenerInEnv();
  const path = process.env.PATH;
  // Without a PATH no systemd-notify could be started: what arrives came from this process.
  process.env.PATH = '';
  try {
    await notifier.ready('starting');
    await notifier.watchdog();
    await notifier.stopping('stopping: test');
    await notifier.flush();
    await listener.waitFor((m) => m.STOPPING === '1');
    assert.equal(listener.messages, [
      { READY: '1', STATUS: 'starting', MAINPID: String(process.pid) },
      { WATCHDOG: '1', MAINPID: String(process.pid) },
      { STOPPING: '1', STATUS: 'stopping: test', MAINPID: String(process.pid) },
    ]);
  } finally {
    process.env.PATH = path;
    await close();
  }
});

test('an abstract socket (@name) is reached through systemd-notify', async () => {
  const { listener, notifier, close } = await listenerInEnv({ abstract: true });
  try {
    assert.ok(listener.path.startsWith('@'));
    await notifier.ready('starting');
    await notifier.status('online via HomeNet');
    await notifier.flush();
    const status = await listener.waitFor((m) => m.STATUS === 'online via HomeNet');
    assert.is(status.MAINPID, String(process.pid));
    assert.ok(listener.messages.some((m) => m.READY === '1' && m.STATUS === 'starting'));
  } finally {
    await close();
  }
});

test('a socket that is not there: each failure is logged, and the queue goes on', async () => {
  const warnings: string[] = [];
  const log = new Logger('warn', {}, (line) => warnings.push(line));
  const dir = tempDir('nestbox-notify-');
  try {
    const notifier = createNotifier({ NOTIFY_SOCKET: join(dir.path, 'missing.sock') }, log);
    await notifier.ready('starting');
    await notifier.watchdog();
    const failed = warnings.map((line) => JSON.parse(line) as { msg: string; what: string });
    assert.equal(
      failed.map((line) => [line.msg, line.what]),
      [
        ['systemd notification failed', 'ready'],
        ['systemd notification failed', 'watchdog'],
      ],
    );
  } finally {
    dir.remove();
  }
});

test('nothing is sent when NOTIFY_SOCKET is unset', async () => {
  const notifier = createNotifier({}, quiet);
  assert.is(notifier.enabled, false);
  const watchdog = new Watchdog({
    env: {},
    log: quiet,
    ping: () => notifier.watchdog(),
    databaseAnswers: async () => true,
  });
  assert.is(watchdog.start(), false, 'no watchdog without WATCHDOG_USEC');
  // With no socket the notifier sends nothing and resolves at once.
  await notifier.ready('x');
  await notifier.watchdog();
  await notifier.stopping('y');
});

test.run();
