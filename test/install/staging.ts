/**
 * What the installer tests stage into: a fake board (the device tree's model and the gpiochip
 * sysfs the installer reads), a boot partition and a dhcpcd.conf of the box's own, and a small
 * driver tree with the layout and the version header of Espressif's esp-hosted (none of
 * Espressif's code: files with the same names and the defines the installer reads).
 */
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { REPO_ROOT } from '../helpers/paths.js';

export const INSTALLER = join(REPO_ROOT, 'scripts', 'install.sh');
export const BOOT_CONFIG = 'boot/firmware/config.txt';
export const ORIGINAL_BOOT_CONFIG = "# the owner's own settings\ndtparam=audio=on\n\n[pi4]\narm_boost=1\n";
export const ORIGINAL_DHCPCD = 'hostname\nclientid\n';

export type Board = 'pi4' | 'pi5';

function write(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

/**
 * A Raspberry Pi's root as the installer reads it. A Pi 4 on a current kernel: pinctrl-bcm2711 at
 * 512; a Pi 5: the RP1's pinctrl-rp1 at 571 beside the SoC's own controllers (which the installer
 * must not take).
 */
export function makeBoard(root: string, board: Board): void {
  const model = board === 'pi5' ? 'Raspberry Pi 5 Model B Rev 1.0' : 'Raspberry Pi 4 Model B Rev 1.4';
  write(join(root, 'proc/device-tree/model'), `${model}\0`);
  const chips: [number, string][] =
    board === 'pi5'
      ? [
          [512, 'gpio-brcmstb@107d508500'],
          [544, 'gpio-brcmstb@107d517c00'],
          [571, 'pinctrl-rp1'],
        ]
      : [
          [512, 'pinctrl-bcm2711'],
          [570, 'raspberrypi-exp-gpio'],
        ];
  for (const [base, label] of chips) {
    write(join(root, `sys/class/gpio/gpiochip${base}/base`), `${base}\n`);
    write(join(root, `sys/class/gpio/gpiochip${base}/label`), `${label}\n`);
  }
  write(join(root, BOOT_CONFIG), ORIGINAL_BOOT_CONFIG);
  write(join(root, 'etc/dhcpcd.conf'), ORIGINAL_DHCPCD);
}

/** An esp-hosted tree whose esp_fw_version.h says `release` (FG-a.b.c.d.e). */
export function makeDriverSource(dir: string, release = 'FG-1.2.3.4.5'): void {
  const [major1, major2, minor, patch1, patch2] = release.replace('FG-', '').split('.');
  const fg = join(dir, 'esp_hosted_fg');
  const driver = join(fg, 'host/linux/host_driver/esp32');
  write(join(driver, 'Makefile'), 'obj-m := $(MODULE_NAME).o\n');
  write(join(driver, 'main.c'), '/* the driver */\n');
  write(join(driver, 'spi/esp_spi.c'), '/* SPI */\n');
  write(join(driver, 'sdio/esp_sdio.c'), '/* SDIO */\n');
  write(
    join(fg, 'common/include/esp_fw_version.h'),
    [
      '#define PROJECT_NAME              "FG"',
      `#define PROJECT_VERSION_MAJOR_1   ${major1}`,
      `#define PROJECT_VERSION_MAJOR_2   ${major2}`,
      `#define PROJECT_VERSION_MINOR     ${minor}`,
      `#define PROJECT_REVISION_PATCH_1  ${patch1}`,
      `#define PROJECT_REVISION_PATCH_2  ${patch2}`,
      '',
    ].join('\n'),
  );
  write(join(fg, 'common/include/adapter.h'), '/* shared with the firmware */\n');
  write(
    join(fg, 'host/linux/host_control/spidev_disabler.dts'),
    '/dts-v1/;\n/plugin/;\n/ {\n\tfragment@0 {\n\t\ttarget = <&spidev0>;\n\t\t__overlay__ { status = "disabled"; };\n\t};\n};\n',
  );
}

export function runInstaller(args: string[], env: NodeJS.ProcessEnv = process.env): SpawnSyncReturns<string> {
  return spawnSync('bash', [INSTALLER, '--skip-build', ...args], { encoding: 'utf8', timeout: 120_000, env });
}

/** Every entry under root with its type, size, mode, mtime (and a link's target): equal = unchanged. */
export function snapshot(root: string): Map<string, string> {
  const entries = new Map<string, string>();
  const walk = (dir: string, rel: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      const relative = rel ? `${rel}/${name}` : name;
      const stat = lstatSync(path);
      const kind = stat.isSymbolicLink() ? `link:${readlinkSync(path)}` : stat.isDirectory() ? 'dir' : 'file';
      entries.set(relative, `${kind} ${stat.size} ${stat.mode.toString(8)} ${stat.mtimeMs}`);
      if (stat.isDirectory()) walk(path, relative);
    }
  };
  walk(root, '');
  return entries;
}

/** The files (not folders) of a snapshot. */
export function files(entries: Map<string, string>): string[] {
  return [...entries].filter(([, kind]) => !kind.startsWith('dir')).map(([path]) => path);
}

/** What differs between two snapshots, for an assertion message. */
export function changes(before: Map<string, string>, after: Map<string, string>): string[] {
  const paths = new Set([...before.keys(), ...after.keys()]);
  return [...paths].filter((path) => before.get(path) !== after.get(path)).sort();
}

export function read(root: string, path: string): string {
  return readFileSync(join(root, path), 'utf8');
}

/** The `options` line of the staged modprobe.d file. */
export function moduleOptions(root: string): string {
  return read(root, 'etc/modprobe.d/nestbox-esp-hosted.conf')
    .split('\n')
    .filter((line) => line.startsWith('options '))
    .join('\n');
}
