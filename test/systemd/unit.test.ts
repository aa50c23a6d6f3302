import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT, tempDir } from '../helpers/paths.js';
import { requirePackage } from '../helpers/system-packages.js';

const UNIT = join(REPO_ROOT, 'systemd', 'nestbox.service');
const unitText = readFileSync(UNIT, 'utf8');

function directives(text: string): Map<string, string[]> {
  const map = new Map<string, string[]>();
  for (const line of text.split('\n')) {
    const match = /^([A-Za-z]+)=(.*)$/.exec(line.trim());
    if (match) map.set(match[1], [...(map.get(match[1]) ?? []), match[2]]);
  }
  return map;
}

function verify(path: string) {
  return spawnSync('systemd-analyze', ['verify', path], { encoding: 'utf8', timeout: 20_000 });
}

test('the unit declares notify, watchdog, restart, limits, state, user and device access', () => {
  const d = directives(unitText);
  const one = (key: string) => d.get(key)?.[0];
  assert.is(one('Type'), 'notify');
  assert.is(one('ExecStart'), '/bin/sh /opt/nestbox/scripts/nestboxd', 'started by the launcher that tunes malloc');
  assert.is(one('NotifyAccess'), 'all');
  assert.ok(one('WatchdogSec'));
  assert.is(one('Restart'), 'on-failure');
  assert.ok(one('RestartSec'));
  assert.ok(one('StartLimitIntervalSec') && one('StartLimitBurst'));
  assert.is(one('StateDirectory'), 'nestbox');
  assert.is(one('User'), 'nestbox');
  assert.match(one('SupplementaryGroups') ?? '', /dialout/);
  assert.is(one('DevicePolicy'), 'closed');
  const allowed = (d.get('DeviceAllow') ?? []).join(' ');
  assert.match(allowed, /char-esp_serial_driver rw/, "the ESP-Hosted driver's control device, by driver name");
  assert.match(allowed, /\/dev\/ttyAMA0/);
  assert.ok(d.get('Environment')?.includes('NESTBOX_COPROC=esps:/dev/esps0'), 'what the hardware speaks');
  assert.not.ok(
    [...(d.get('After') ?? []), ...(d.get('Wants') ?? [])].join(' ').includes('network-online.target'),
    'the box starts without a network: it opens the setup AP',
  );
  for (const hardening of [
    'NoNewPrivileges',
    'ProtectSystem',
    'ProtectKernelTunables',
    'RestrictAddressFamilies',
    'LockPersonality',
    'SystemCallArchitectures',
  ]) {
    assert.ok(one(hardening), `${hardening} is set`);
  }
  assert.not.ok(d.has('PrivateDevices'), 'PrivateDevices hides the serial device');
  assert.not.ok(d.has('MemoryDenyWriteExecute'), 'MemoryDenyWriteExecute kills the V8 JIT');
});

test('systemd-analyze verify accepts the unit (and would refuse a broken one)', () => {
  requirePackage(['systemd']);
  const dir = tempDir();
  try {
    const good = join(dir.path, 'nestbox.service');
    writeFileSync(good, unitText);
    const ok = verify(good);
    assert.is(ok.status, 0, ok.stderr);
    assert.is(ok.stderr.trim(), '');
    const bad = join(dir.path, 'broken.service');
    writeFileSync(
      bad,
      unitText.replace('Type=notify', 'Type=notifyy').replace('Restart=on-failure', 'Restart=sometimes'),
    );
    const refused = verify(bad);
    assert.match(refused.stderr, /service type.*notifyy/);
    assert.match(refused.stderr, /restart specifier.*sometimes/);
  } finally {
    dir.remove();
  }
});

test('install.sh stages the unit, the code and the site settings, and is safe to run twice', () => {
  const root = tempDir('nestbox-root-');
  try {
    const run = () =>
      spawnSync(
        'bash',
        [join(REPO_ROOT, 'scripts', 'install.sh'), '--root', root.path, '--skip-build', '--transport', 'none'],
        {
          encoding: 'utf8',
          timeout: 60_000,
        },
      );
    const first = run();
    assert.is(first.status, 0, first.stderr);
    const settings = join(root.path, 'etc/default/nestbox');
    writeFileSync(settings, 'NESTBOX_MQTT_URL=mqtt://127.0.0.1:1883\n');
    const second = run();
    assert.is(second.status, 0, second.stderr);
    assert.ok(existsSync(join(root.path, 'opt/nestbox/daemon/main.ts')));
    assert.ok(existsSync(join(root.path, 'opt/nestbox/package.json')));
    assert.ok(existsSync(join(root.path, 'opt/nestbox/scripts/nestboxd')), 'the launcher the unit runs');
    assert.not.ok(existsSync(join(root.path, 'opt/nestbox/.git')));
    assert.is(readFileSync(join(root.path, 'etc/systemd/system/nestbox.service'), 'utf8'), unitText);
    assert.is(
      readFileSync(settings, 'utf8'),
      'NESTBOX_MQTT_URL=mqtt://127.0.0.1:1883\n',
      'site settings survive a reinstall',
    );
    const help = spawnSync('bash', [join(REPO_ROOT, 'scripts', 'install.sh'), '--help'], { encoding: 'utf8' });
    assert.is(help.status, 0);
    assert.match(help.stdout, /Usage/);
    const wrong = spawnSync('bash', [join(REPO_ROOT, 'scripts', 'install.sh'), '--bogus'], { encoding: 'utf8' });
    assert.is(wrong.status, 2);
  } finally {
    root.remove();
  }
});

test.run();
