/**
 * scripts/install.sh staged with --root for a Pi 4 and a Pi 5, over SPI and SDIO, for each chip:
 * the boot config block, the overlay, the module options with global GPIO numbers, the DKMS
 * package, the handover of the interfaces; a second run changes nothing; --uninstall takes it all
 * back.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../helpers/paths.js';
import { requirePackage } from '../helpers/system-packages.js';
import {
  BOOT_CONFIG,
  ORIGINAL_BOOT_CONFIG,
  ORIGINAL_DHCPCD,
  changes,
  files,
  makeBoard,
  makeDriverSource,
  moduleOptions,
  read,
  runInstaller,
  snapshot,
  type Board,
} from './staging.js';

requirePackage(['device-tree-compiler']);

const source = tempDir('nestbox-esp-hosted-');
makeDriverSource(source.path);
test.after(() => source.remove());

/** One installation per board and arguments, run once; each test gets a copy of it to change. */
const installed = new Map<string, { root: string; output: string }>();
test.after(() => {
  for (const { root } of installed.values()) rmSync(root, { recursive: true, force: true });
});

function stage(board: Board, args: string[] = []): { root: string; remove: () => void; output: string } {
  const key = [board, ...args].join(' ');
  let original = installed.get(key);
  if (!original) {
    const root = tempDir('nestbox-root-').path;
    makeBoard(root, board);
    const run = runInstaller(['--root', root, '--driver-source', source.path, ...args]);
    assert.is(run.status, 0, run.stderr);
    original = { root, output: run.stdout };
    installed.set(key, original);
  }
  // cp -a keeps modes and every mtime (folders' too): a second run on the copy must find nothing to change.
  const root = tempDir('nestbox-root-');
  const copy = spawnSync('cp', ['-a', `${original.root}/.`, root.path], { encoding: 'utf8' });
  assert.is(copy.status, 0, copy.stderr);
  return { root: root.path, remove: root.remove, output: original.output };
}

/** The lines between the markers, and the file with the block taken out. */
function bootBlock(root: string): { block: string[]; rest: string } {
  const text = read(root, BOOT_CONFIG);
  const begin = text.indexOf('# nestbox begin\n');
  const end = text.indexOf('# nestbox end\n');
  assert.ok(begin >= 0 && end > begin, text);
  return {
    block: text.slice(begin, end).split('\n').slice(1, -1),
    rest: text.slice(0, begin) + text.slice(end + '# nestbox end\n'.length),
  };
}

/** dkms.conf evaluated the way DKMS sources it, for a kernel of `arch`. */
function dkmsRecipe(root: string, release: string, arch: string): Record<string, string> {
  const conf = join(root, `usr/src/esp-hosted-${release}/dkms.conf`);
  const script =
    'arch=$1; kernel_source_dir=/lib/modules/6.12.25+rpt-rpi-v8/build; . "$2"; ' +
    'printf "%s\\n" "$PACKAGE_NAME" "$PACKAGE_VERSION" "${MAKE[0]}" "$CLEAN" "${BUILT_MODULE_NAME[0]}" "${BUILT_MODULE_LOCATION[0]}" "$AUTOINSTALL"';
  const run = spawnSync('bash', ['-c', script, 'dkms', arch, conf], { encoding: 'utf8' });
  assert.is(run.status, 0, run.stderr);
  const [name, version, make, clean, module, location, autoinstall] = run.stdout.split('\n');
  return { name, version, make, clean, module, location, autoinstall };
}

test('Pi 4 over SPI: boot block, overlay, module options at base 512, DKMS package, handover, settings', () => {
  const { root, remove, output } = stage('pi4');
  try {
    const { block, rest } = bootBlock(root);
    assert.equal(block, ['[all]', 'dtoverlay=disable-bt', 'dtparam=spi=on', 'dtoverlay=spidev_disabler']);
    assert.is(rest, ORIGINAL_BOOT_CONFIG, 'the rest of config.txt is untouched');
    assert.match(output, /needs a reboot/);

    // The overlay as dtc compiled it: a fragment on the base tree's spidev0, disabled.
    const overlay = spawnSync(
      'dtc',
      ['-I', 'dtb', '-O', 'dts', join(root, 'boot/firmware/overlays/spidev_disabler.dtbo')],
      {
        encoding: 'utf8',
      },
    );
    assert.is(overlay.status, 0, overlay.stderr);
    assert.match(overlay.stdout, /spidev0 = "\/fragment@0:target:0"/);
    assert.match(overlay.stdout, /status = "disabled"/);

    // Espressif's rpi_init.sh defaults for a current Pi 4 kernel are these very numbers.
    assert.is(
      moduleOptions(root),
      'options esp32_spi resetpin=518 clockspeed=10 spi_bus=0 spi_cs=0 spi_mode=2 spi_handshake=534 spi_dataready=539',
    );

    const recipe = dkmsRecipe(root, 'FG-1.2.3.4.5', 'aarch64');
    assert.is(recipe.name, 'esp-hosted');
    assert.is(recipe.version, 'FG-1.2.3.4.5', 'the release read from esp_fw_version.h');
    assert.is(
      recipe.make,
      'cd esp_hosted_fg/host/linux/host_driver/esp32 && make target=spi KERNEL=/lib/modules/6.12.25+rpt-rpi-v8/build ARCH=arm64 CONFIG_BT_ENABLED=n CONFIG_TEST_RAW_TP=n',
    );
    assert.match(recipe.clean, /make clean/);
    assert.is(recipe.module, 'esp32_spi');
    assert.is(recipe.location, 'esp_hosted_fg/host/linux/host_driver/esp32/');
    assert.is(recipe.autoinstall, 'yes');
    assert.match(dkmsRecipe(root, 'FG-1.2.3.4.5', 'armv7l').make, / ARCH=arm /, 'a 32-bit kernel');
    // Espressif's layout, where the Makefile includes ../../../../common/include.
    const tree = 'usr/src/esp-hosted-FG-1.2.3.4.5/esp_hosted_fg';
    for (const file of [
      'host/linux/host_driver/esp32/Makefile',
      'host/linux/host_driver/esp32/spi/esp_spi.c',
      'common/include/esp_fw_version.h',
    ]) {
      assert.is(read(root, `${tree}/${file}`), read(source.path, `esp_hosted_fg/${file}`), file);
    }

    assert.match(
      read(root, 'etc/udev/rules.d/90-nestbox-esps.rules'),
      /SUBSYSTEM=="esp_serial_chardrv", KERNEL=="esps\[0-9\]\*", GROUP="nestbox", MODE="0660"/,
    );
    assert.match(
      read(root, 'etc/NetworkManager/conf.d/90-nestbox.conf'),
      /\[keyfile\]\nunmanaged-devices=interface-name:ethsta0;interface-name:ethap0\n/,
    );
    assert.is(
      read(root, 'etc/dhcpcd.conf'),
      `${ORIGINAL_DHCPCD}# nestbox begin\ndenyinterfaces ethsta0 ethap0\n# nestbox end\n`,
    );
    assert.match(read(root, 'etc/systemd/system/esp-hosted.service'), /^Environment=ESP_HOSTED_MODULE=esp32_spi$/m);
    assert.ok(existsSync(join(root, 'etc/polkit-1/rules.d/50-nestbox-esp-hosted.rules')));
    const settings = read(root, 'etc/default/nestbox');
    assert.match(settings, /^NESTBOX_COPROC=esps:\/dev\/esps0$/m);
    assert.match(settings, /^NESTBOX_ESP_HOSTED_RELEASE=FG-1\.2\.3\.4\.5$/m);
  } finally {
    remove();
  }
});

test('Pi 5: the RP1 controller (pinctrl-rp1 at 571), not the SoC gpiochips at 512', () => {
  const { root, remove } = stage('pi5');
  try {
    assert.is(
      moduleOptions(root),
      'options esp32_spi resetpin=577 clockspeed=10 spi_bus=0 spi_cs=0 spi_mode=2 spi_handshake=593 spi_dataready=598',
    );
    assert.match(read(root, 'etc/modprobe.d/nestbox-esp-hosted.conf'), /Raspberry Pi 5 Model B Rev 1\.0/);
  } finally {
    remove();
  }
});

test('SDIO: the sdio overlay, no SPI, no spidev overlay, the reset pin only, the SDIO module', () => {
  const { root, remove } = stage('pi4', ['--transport', 'sdio', '--chip', 'esp32c6', '--reset-gpio', '5']);
  try {
    const { block, rest } = bootBlock(root);
    assert.equal(block, ['[all]', 'dtoverlay=disable-bt', 'dtoverlay=sdio,poll_once=off']);
    assert.is(rest, ORIGINAL_BOOT_CONFIG);
    assert.not.ok(existsSync(join(root, 'boot/firmware/overlays/spidev_disabler.dtbo')));
    assert.is(moduleOptions(root), 'options esp32_sdio resetpin=517');
    const recipe = dkmsRecipe(root, 'FG-1.2.3.4.5', 'aarch64');
    assert.match(recipe.make, / make target=sdio /);
    assert.is(recipe.module, 'esp32_sdio');
    assert.match(read(root, 'etc/systemd/system/esp-hosted.service'), /^Environment=ESP_HOSTED_MODULE=esp32_sdio$/m);
  } finally {
    remove();
  }
});

test('each chip kind: SPI mode 2 for an ESP32, 3 for the others; bus, chip select, clock and GPIOs as given', () => {
  const { root, remove } = stage('pi4');
  try {
    for (const chip of ['esp32', 'esp32s2', 'esp32s3', 'esp32c2', 'esp32c3', 'esp32c5', 'esp32c6']) {
      const run = runInstaller([
        '--root',
        root,
        '--driver-source',
        source.path,
        '--chip',
        chip,
        '--spi-bus',
        '1',
        '--spi-cs',
        '1',
        '--spi-clock-mhz',
        '26',
        '--reset-gpio',
        '16',
        '--handshake-gpio',
        '17',
        '--dataready-gpio',
        '18',
      ]);
      assert.is(run.status, 0, run.stderr);
      const mode = chip === 'esp32' ? 2 : 3;
      assert.is(
        moduleOptions(root),
        `options esp32_spi resetpin=528 clockspeed=26 spi_bus=1 spi_cs=1 spi_mode=${mode} spi_handshake=529 spi_dataready=530`,
        chip,
      );
    }
  } finally {
    remove();
  }
});

test("a second run changes nothing (content, modes, mtimes); the owner's settings are kept", () => {
  const { root, remove } = stage('pi4');
  try {
    const settings = join(root, 'etc/default/nestbox');
    writeFileSync(settings, 'NESTBOX_MQTT_URL=mqtt://127.0.0.1:1883\nNESTBOX_ESP_HOSTED_RELEASE=FG-1.2.3.4.5\n');
    const before = snapshot(root);
    const again = runInstaller(['--root', root, '--driver-source', source.path]);
    assert.is(again.status, 0, again.stderr);
    assert.equal(changes(before, snapshot(root)), []);
    assert.not.match(again.stdout, /needs a reboot/, 'nothing to reboot for');
  } finally {
    remove();
  }
});

test('a new driver release: the old package goes, the release line follows, the other settings stay', () => {
  const { root, remove } = stage('pi4');
  const newer = tempDir('nestbox-esp-hosted-');
  try {
    makeDriverSource(newer.path, 'FG-1.2.4.0.0');
    const settings = join(root, 'etc/default/nestbox');
    writeFileSync(settings, `${read(root, 'etc/default/nestbox')}NESTBOX_BASE_URL=http://box.example\n`);
    const run = runInstaller(['--root', root, '--driver-source', newer.path]);
    assert.is(run.status, 0, run.stderr);
    assert.not.ok(existsSync(join(root, 'usr/src/esp-hosted-FG-1.2.3.4.5')));
    assert.ok(existsSync(join(root, 'usr/src/esp-hosted-FG-1.2.4.0.0/dkms.conf')));
    const text = read(root, 'etc/default/nestbox');
    assert.match(text, /^NESTBOX_ESP_HOSTED_RELEASE=FG-1\.2\.4\.0\.0$/m);
    assert.not.match(text, /FG-1\.2\.3\.4\.5/);
    assert.match(text, /^NESTBOX_BASE_URL=http:\/\/box\.example$/m);
  } finally {
    newer.remove();
    remove();
  }
});

test("--uninstall leaves nothing it wrote: the board's files as they were, /etc/default/nestbox kept", () => {
  const root = tempDir('nestbox-root-');
  try {
    makeBoard(root.path, 'pi4');
    const before = files(snapshot(root.path));
    assert.is(runInstaller(['--root', root.path, '--driver-source', source.path]).status, 0);
    const run = runInstaller(['--root', root.path, '--uninstall']);
    assert.is(run.status, 0, run.stderr);
    assert.equal(files(snapshot(root.path)).sort(), [...before, 'etc/default/nestbox'].sort());
    assert.is(read(root.path, BOOT_CONFIG), ORIGINAL_BOOT_CONFIG, 'config.txt byte for byte as before');
    assert.is(read(root.path, 'etc/dhcpcd.conf'), ORIGINAL_DHCPCD);
    assert.match(read(root.path, 'etc/default/nestbox'), /NESTBOX_COPROC=esps/);
  } finally {
    root.remove();
  }
});

test('--transport none: no driver, no boot block, no esp-hosted unit; switching to it removes them', () => {
  const { root, remove } = stage('pi4');
  try {
    const run = runInstaller(['--root', root, '--transport', 'none']);
    assert.is(run.status, 0, run.stderr);
    assert.is(read(root, BOOT_CONFIG), ORIGINAL_BOOT_CONFIG);
    assert.is(read(root, 'etc/dhcpcd.conf'), ORIGINAL_DHCPCD);
    for (const gone of [
      'etc/systemd/system/esp-hosted.service',
      'etc/systemd/system/nestbox.service.d',
      'etc/modprobe.d/nestbox-esp-hosted.conf',
      'etc/polkit-1/rules.d/50-nestbox-esp-hosted.rules',
      'usr/src/esp-hosted-FG-1.2.3.4.5',
      'boot/firmware/overlays/spidev_disabler.dtbo',
    ]) {
      assert.not.ok(existsSync(join(root, gone)), gone);
    }
    assert.ok(existsSync(join(root, 'etc/systemd/system/nestbox.service')));
  } finally {
    remove();
  }
});

test.run();
