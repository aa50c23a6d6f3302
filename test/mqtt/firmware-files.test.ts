/**
 * The firmware files behind Home Assistant's update entity: the image description as ESP-IDF lays
 * it out, the newest valid file of a real folder shown in DeviceState, an upload kept there.
 */
import { readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { CommandError } from '../../daemon/connectivity/command-error.js';
import { DeviceOperations } from '../../daemon/connectivity/device-operations.js';
import { CoprocessorRecord } from '../../daemon/connectivity/coprocessor-record.js';
import { FirmwareFiles } from '../../daemon/connectivity/firmware-files.js';
import { FirmwareUpdate } from '../../daemon/connectivity/firmware-update.js';
import type { ConnectivityRunner } from '../../daemon/connectivity/runner.js';
import { readFirmwareImage } from '../../daemon/coproc/firmware-image.js';
import { DeviceState, initialDeviceState } from '../../daemon/device/state.js';
import { Logger, type LogFields } from '../../daemon/log/logger.js';
import { buildFirmwareImage } from '../helpers/firmware-image.js';
import { tempDir } from '../helpers/paths.js';

function files(dir: string | null) {
  const device = new DeviceState(initialDeviceState('1', 'sim'));
  const logs: Array<{ msg: string } & LogFields> = [];
  const log = new Logger('debug', {}, (line) => logs.push(JSON.parse(line)));
  return { device, logs, files: new FirmwareFiles({ dir, coprocessor: new CoprocessorRecord(device), log }) };
}

function touch(path: string, secondsAgo: number): void {
  const at = new Date(Date.now() - secondsAgo * 1000);
  utimesSync(path, at, at);
}

test('the description is read from where ESP-IDF puts it: version, project, chip', () => {
  const image = buildFirmwareImage({ version: 'FG-1.2.0.0.0', project: 'network_adapter', chipId: 9 });
  assert.equal(readFirmwareImage(image), { version: 'FG-1.2.0.0.0', project: 'network_adapter', chip: 'ESP32-S3' });
  const noDescription = Uint8Array.from(image);
  noDescription[32] = 0; // the esp_app_desc_t magic broken
  assert.is(readFirmwareImage(noDescription), null);
  assert.is(readFirmwareImage(Buffer.from('hello')), null);
  const notEsp = Uint8Array.from(image);
  notEsp[0] = 0x7f;
  assert.is(readFirmwareImage(notEsp), null);
});

test('the newest valid image of the folder is shown; other files are skipped with a log line', async () => {
  const dir = tempDir('nestbox-fw-');
  try {
    const { device, logs, files: box } = files(dir.path);
    assert.is(await box.refresh(), null);
    assert.is(device.get().coprocessor.firmware_file, null, 'an empty folder offers nothing');
    writeFileSync(join(dir.path, 'old.bin'), buildFirmwareImage({ version: 'FG-1.0.0.0.0' }));
    touch(join(dir.path, 'old.bin'), 300);
    writeFileSync(join(dir.path, 'new.bin'), buildFirmwareImage({ version: 'FG-1.1.0.0.0', bytes: 5000 }));
    touch(join(dir.path, 'new.bin'), 200);
    writeFileSync(join(dir.path, 'broken.bin'), 'not an image');
    touch(join(dir.path, 'broken.bin'), 100);
    writeFileSync(join(dir.path, 'readme.txt'), 'ignored');
    await box.refresh();
    assert.equal(device.get().coprocessor.firmware_file, {
      version: 'FG-1.1.0.0.0',
      project: 'network_adapter',
      name: 'new.bin',
      bytes: 5000,
    });
    assert.ok(logs.some((line) => line.file === 'broken.bin' && line.level === 'warn'));

    // A dashboard upload becomes the newest file.
    const uploaded = buildFirmwareImage({ version: 'FG-2.0.0.0.0' });
    await box.save(uploaded);
    assert.is(device.get().coprocessor.firmware_file?.version, 'FG-2.0.0.0.0');
    assert.ok(readFileSync(join(dir.path, 'uploaded.bin')).equals(Buffer.from(uploaded)));
  } finally {
    dir.remove();
  }
});

test('without a folder configured, or a missing one, nothing is offered and nothing fails', async () => {
  const none = files(null);
  assert.is(await none.files.refresh(), null);
  await none.files.save(buildFirmwareImage({ version: 'FG-1.0.0.0.0' }));
  assert.is(none.device.get().coprocessor.firmware_file, null);
  const missing = files('/nonexistent/nestbox/firmware');
  assert.is(await missing.files.refresh(), null);
  assert.equal(missing.logs, [], 'a folder nobody made yet is no problem');
});

test('Install refuses in words: no file on the box, or an image for another chip', async () => {
  const dir = tempDir('nestbox-fw-');
  try {
    const { device, files: box } = files(dir.path);
    const update = new FirmwareUpdate({
      updater: null,
      coprocessor: new CoprocessorRecord(device),
      // Only asked whether the device is lost; these refusals come before any device work.
      runner: { deviceLost: false } as ConnectivityRunner,
      operations: new DeviceOperations(),
      files: box,
      log: new Logger('error', {}, () => undefined),
    });
    const refusal = (error: unknown) => `${(error as CommandError).kind}: ${(error as Error).message}`;
    const attempt = () => update.installLatest().then((started) => `started ${JSON.stringify(started)}`, refusal);
    assert.match(await attempt(), /^invalid: There is no firmware file on the box/);
    writeFileSync(join(dir.path, 's3.bin'), buildFirmwareImage({ version: 'FG-1.1.0.0.0', chipId: 9 }));
    device.update({ coprocessor: { chip: 'ESP32' } });
    assert.is(await attempt(), 'invalid: s3.bin is built for ESP32-S3, but the coprocessor is ESP32');
    assert.is(device.get().coprocessor.ota.phase, 'idle', 'nothing was written');
  } finally {
    dir.remove();
  }
});

test.run();
