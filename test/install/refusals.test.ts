/**
 * What scripts/install.sh refuses, and that a refusal changes nothing: bad options (one line on
 * stderr naming the option, exit 2), a driver archive that is not the pinned one, a board it
 * cannot read, a missing dtc.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { REPO_ROOT, tempDir } from '../helpers/paths.js';
import { requirePackage } from '../helpers/system-packages.js';
import { INSTALLER, changes, makeBoard, makeDriverSource, moduleOptions, runInstaller, snapshot } from './staging.js';

requirePackage(['device-tree-compiler']);

const MANIFEST = join(REPO_ROOT, 'scripts/install/esp-hosted-fg.sha256');

const source = tempDir('nestbox-esp-hosted-');
makeDriverSource(source.path);
const root = tempDir('nestbox-root-');
makeBoard(root.path, 'pi4');
test.after(() => {
  source.remove();
  root.remove();
});

test('bad options: one line naming the option, exit 2, nothing changed', () => {
  const cases: [string[], RegExp][] = [
    [['--transport', 'usb'], /--transport usb: expected spi, sdio or none/],
    [['--chip', 'esp8266'], /--chip esp8266: expected esp32, /],
    [['--transport', 'sdio', '--chip', 'esp32s3'], /--chip esp32s3: SDIO needs an esp32, esp32c5 or esp32c6/],
    [['--reset-gpio', '40'], /--reset-gpio 40: expected a number from 0 to 27/],
    [['--handshake-gpio', 'two'], /--handshake-gpio two: expected a number/],
    [['--dataready-gpio', '22'], /--reset-gpio, --handshake-gpio and --dataready-gpio must be three different GPIOs/],
    [['--spi-clock-mhz', '80'], /--spi-clock-mhz 80: expected a number from 1 to 40/],
    [['--spi-cs', '-1'], /--spi-cs -1: expected a number/],
    [
      ['--driver-source', '/nonexistent/esp-hosted'],
      /--driver-source \/nonexistent\/esp-hosted: no such file or folder/,
    ],
    [
      ['--driver-source', '/tmp'],
      /--driver-source \/tmp: no esp_hosted_fg\/host\/linux\/host_driver\/esp32\/Makefile there/,
    ],
    [['--chip'], /--chip needs a value/],
    [['--bogus'], /unknown option --bogus/],
  ];
  const before = snapshot(root.path);
  for (const [args, message] of cases) {
    const run = runInstaller(['--root', root.path, '--driver-source', source.path, ...args]);
    assert.is(run.status, 2, `${args.join(' ')}: ${run.stderr}`);
    const lines = run.stderr.trim().split('\n');
    assert.is(lines.length, 1, `${args.join(' ')}: ${run.stderr}`);
    assert.match(lines[0], message);
    assert.is(run.stdout, '', 'nothing was started');
  }
  assert.equal(changes(before, snapshot(root.path)), []);
});

test('--help lists every option of the contract', () => {
  const help = spawnSync('bash', [INSTALLER, '--help'], { encoding: 'utf8' });
  assert.is(help.status, 0);
  for (const option of [
    '--transport spi|sdio|none',
    '--chip esp32|esp32s2|esp32s3|esp32c2|esp32c3|esp32c5|esp32c6',
    '--reset-gpio 6',
    '--handshake-gpio 22',
    '--dataready-gpio 27',
    '--spi-bus 0',
    '--spi-cs 0',
    '--spi-clock-mhz 10',
    '--driver-source',
    '--root DIR',
    '--uninstall',
  ]) {
    assert.ok(help.stdout.includes(option), option);
  }
});

test('an archive that is not the pinned release is refused before anything of it is installed', () => {
  const work = tempDir('nestbox-archive-');
  try {
    // The pinned archive's shape (one top folder, the driver under it) with other content.
    mkdirSync(join(work.path, 'esp-hosted-0ed22cb'));
    makeDriverSource(join(work.path, 'esp-hosted-0ed22cb'));
    const archive = join(work.path, 'esp-hosted.tar.gz');
    const tar = spawnSync('tar', ['-czf', archive, '-C', work.path, 'esp-hosted-0ed22cb']);
    assert.is(tar.status, 0);
    const before = snapshot(root.path);
    const run = runInstaller(['--root', root.path, '--driver-source', archive]);
    assert.is(run.status, 1);
    assert.match(run.stderr, /its driver files are not those of esp-hosted 0ed22cbc04b65f4920ba83da005430426820e82d/);
    // Every file the manifest lists, with other bytes: the SHA-256 check itself refuses it.
    const top = join(work.path, 'esp-hosted-0ed22cb');
    spawnSync('rm', ['-rf', top]);
    for (const line of readFileSync(MANIFEST, 'utf8').trim().split('\n')) {
      const path = join(top, line.split(/\s+/)[1]);
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, "not Espressif's file\n");
    }
    assert.is(spawnSync('tar', ['-czf', archive, '-C', work.path, 'esp-hosted-0ed22cb']).status, 0);
    const tampered = runInstaller(['--root', root.path, '--driver-source', archive]);
    assert.is(tampered.status, 1);
    assert.match(tampered.stderr, /SHA-256 mismatch against esp-hosted 0ed22cbc04b65f4920ba83da005430426820e82d/);
    assert.equal(changes(before, snapshot(root.path)), []);
  } finally {
    work.remove();
  }
});

test('a board without a known GPIO controller is refused; --gpio-base names the base instead', () => {
  const bare = tempDir('nestbox-root-');
  try {
    makeBoard(bare.path, 'pi4');
    const sysfs = join(bare.path, 'sys/class/gpio');
    spawnSync('rm', ['-rf', sysfs]);
    const refused = runInstaller(['--root', bare.path, '--driver-source', source.path]);
    assert.is(refused.status, 1);
    assert.match(refused.stderr, /found no Raspberry Pi GPIO controller .*Raspberry Pi 4 Model B.*--gpio-base N/);
    assert.not.ok(existsSync(join(bare.path, 'opt')), 'nothing installed');
    const given = runInstaller(['--root', bare.path, '--driver-source', source.path, '--gpio-base', '0']);
    assert.is(given.status, 0, given.stderr);
    assert.match(moduleOptions(bare.path), /resetpin=6 .* spi_handshake=22 spi_dataready=27$/);
  } finally {
    bare.remove();
  }
});

test('staging SPI without dtc is refused, naming the package, before anything changes', () => {
  // A PATH with every command of this machine but dtc.
  const bin = tempDir('nestbox-path-');
  try {
    for (const dir of ['/usr/local/bin', '/usr/bin', '/usr/sbin']) {
      if (!existsSync(dir)) continue;
      for (const name of readdirSync(dir)) {
        if (name === 'dtc' || existsSync(join(bin.path, name))) continue;
        symlinkSync(join(dir, name), join(bin.path, name));
      }
    }
    const before = snapshot(root.path);
    const run = runInstaller(['--root', root.path, '--driver-source', source.path], { ...process.env, PATH: bin.path });
    assert.is(run.status, 1, run.stderr);
    assert.match(run.stderr, /dtc is not installed .*apt-get install device-tree-compiler/);
    assert.equal(changes(before, snapshot(root.path)), []);
    const sdio = runInstaller(['--root', root.path, '--driver-source', source.path, '--transport', 'sdio'], {
      ...process.env,
      PATH: bin.path,
    });
    assert.is(sdio.status, 0, `SDIO needs no overlay compiled: ${sdio.stderr}`);
  } finally {
    bin.remove();
  }
});

test.run();
