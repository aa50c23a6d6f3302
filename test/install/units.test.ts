/**
 * The units as systemd reads them on a staged box: esp-hosted.service and nestbox.service with its
 * drop-in pass `systemd-analyze verify`; the daemon depends on the driver (and not on
 * network-online.target) only when the driver is installed; the polkit rule lets the nestbox user
 * reload that one unit and nothing else.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { runInContext, createContext } from 'node:vm';
import { tempDir } from '../helpers/paths.js';
import { requirePackage } from '../helpers/system-packages.js';
import { makeBoard, makeDriverSource, read, runInstaller } from './staging.js';

requirePackage(['systemd', 'device-tree-compiler']);

const source = tempDir('nestbox-esp-hosted-');
makeDriverSource(source.path);
test.after(() => source.remove());

/**
 * A staged box systemd can verify offline: the distribution's units (sysinit.target and the rest
 * every service is ordered after) and the binaries the units run, which Debian's kmod, udev and
 * dash put there on a real box.
 */
function verifiableBox(args: string[]): { root: string; remove: () => void } {
  const box = tempDir('nestbox-root-');
  makeBoard(box.path, 'pi4');
  const run = runInstaller(['--root', box.path, '--driver-source', source.path, ...args]);
  assert.is(run.status, 0, run.stderr);
  cpSync('/usr/lib/systemd/system', join(box.path, 'usr/lib/systemd/system'), { recursive: true });
  for (const binary of ['sbin/modprobe', 'bin/udevadm', 'bin/sh']) {
    const path = join(box.path, binary);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, '#!/bin/sh\n');
    chmodSync(path, 0o755);
  }
  return { root: box.path, remove: box.remove };
}

function verify(root: string, units: string[]) {
  return spawnSync('systemd-analyze', ['verify', `--root=${root}`, ...units], { encoding: 'utf8', timeout: 30_000 });
}

/** nestbox.service as systemd reads it: the file, then its drop-ins, directive by directive. */
function merged(root: string): Map<string, string[]> {
  const run = spawnSync('systemd-analyze', [`--root=${root}`, 'cat-config', 'systemd/system/nestbox.service'], {
    encoding: 'utf8',
  });
  assert.is(run.status, 0, run.stderr);
  const map = new Map<string, string[]>();
  for (const line of run.stdout.split('\n')) {
    const match = /^([A-Za-z]+)=(.*)$/.exec(line.trim());
    if (match) map.set(match[1], [...(map.get(match[1]) ?? []), match[2]]);
  }
  return map;
}

test('SPI: both units pass systemd-analyze verify; the daemon Requires and is After the driver', () => {
  const { root, remove } = verifiableBox([]);
  try {
    const ok = verify(root, ['nestbox.service', 'esp-hosted.service']);
    assert.is(ok.status, 0, ok.stderr);
    assert.is(ok.stderr.trim(), '');
    const unit = merged(root);
    assert.ok(unit.get('Requires')?.includes('esp-hosted.service'), 'Requires=');
    assert.ok(
      unit.get('After')?.some((after) => after.split(/\s+/).includes('esp-hosted.service')),
      'After=',
    );
    const ordering = [...(unit.get('After') ?? []), ...(unit.get('Wants') ?? []), ...(unit.get('Requires') ?? [])];
    assert.not.ok(ordering.join(' ').includes('network-online.target'), 'no wait on network-online.target');
    assert.ok(unit.get('DeviceAllow')?.includes('char-esp_serial_driver rw'));
    assert.ok(unit.get('Environment')?.includes('NESTBOX_COPROC=esps:/dev/esps0'));

    const driver = read(root, 'etc/systemd/system/esp-hosted.service');
    assert.match(driver, /^Type=oneshot$/m);
    assert.match(driver, /^RemainAfterExit=yes$/m);
    assert.match(driver, /^ExecStart=\/sbin\/modprobe \$\{ESP_HOSTED_MODULE\}$/m);
    assert.match(driver, /^ExecStartPost=-\/bin\/udevadm wait --timeout=30 \/dev\/esps0$/m);
    const reload = driver.split('\n').filter((line) => line.startsWith('ExecReload='));
    assert.equal(reload.slice(0, 2), [
      'ExecReload=/sbin/modprobe -r ${ESP_HOSTED_MODULE}',
      'ExecReload=/sbin/modprobe ${ESP_HOSTED_MODULE}',
    ]);
    assert.not.match(driver, /^User=/m, 'runs as root');

    // The check can fail: the drop-in without the unit it requires.
    rmSync(join(root, 'etc/systemd/system/esp-hosted.service'));
    const missing = verify(root, ['nestbox.service']);
    assert.is.not(missing.status, 0);
    assert.match(missing.stderr, /esp-hosted\.service/);
  } finally {
    remove();
  }
});

test('--transport none: nestbox.service verifies alone, with no dependency on a driver unit', () => {
  const { root, remove } = verifiableBox(['--transport', 'none']);
  try {
    const ok = verify(root, ['nestbox.service']);
    assert.is(ok.status, 0, ok.stderr);
    const unit = merged(root);
    assert.is(unit.get('Requires'), undefined);
    assert.not.ok((unit.get('After') ?? []).join(' ').includes('esp-hosted'));
  } finally {
    remove();
  }
});

test('the polkit rule: the nestbox user may reload esp-hosted.service, nothing else', () => {
  const { root, remove } = verifiableBox([]);
  try {
    const rules: ((action: unknown, subject: unknown) => unknown)[] = [];
    const YES = 'yes';
    const polkit = { addRule: (rule: (typeof rules)[number]) => rules.push(rule), Result: { YES } };
    runInContext(read(root, 'etc/polkit-1/rules.d/50-nestbox-esp-hosted.rules'), createContext({ polkit }));
    assert.is(rules.length, 1);
    const ask = (id: string, unit: string, verb: string, user: string) =>
      rules[0](
        { id, lookup: (key: string) => ({ unit, verb })[key as 'unit' | 'verb'] },
        { user, local: true, active: true },
      );
    const manage = 'org.freedesktop.systemd1.manage-units';
    assert.is(ask(manage, 'esp-hosted.service', 'reload', 'nestbox'), YES);
    assert.is(ask(manage, 'esp-hosted.service', 'restart', 'nestbox'), undefined);
    assert.is(ask(manage, 'esp-hosted.service', 'stop', 'nestbox'), undefined);
    assert.is(ask(manage, 'nestbox.service', 'reload', 'nestbox'), undefined);
    assert.is(ask(manage, 'esp-hosted.service', 'reload', 'pi'), undefined);
    assert.is(ask('org.freedesktop.systemd1.manage-unit-files', 'esp-hosted.service', 'reload', 'nestbox'), undefined);
    // Debian 12's polkit runs rules in an ECMAScript 5 engine.
    assert.not.match(read(root, 'etc/polkit-1/rules.d/50-nestbox-esp-hosted.rules'), /=>|\blet\b|\bconst\b|`/);
  } finally {
    remove();
  }
});

test.run();
