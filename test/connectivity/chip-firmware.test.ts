/**
 * The connectivity subsystem on the embedded simulator of the current firmware, with a driver of
 * another release configured (NESTBOX_ESP_HOSTED_RELEASE=FG-2.0.0.0.0 against the simulator's
 * FG-1.0.0.0.0): the mismatch in the state, an OTA image of another release refused before
 * anything is written (and written when forced), one of the driver's release accepted, after which
 * the running firmware matches. Also: phones on the setup AP from the firmware's events 306/304.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { HttpServer } from '../../daemon/http/server.js';
import { CommandError } from '../../daemon/connectivity/command-error.js';
import { buildFirmwareImage } from '../helpers/firmware-image.js';
import { serveRigWeb } from './web-fixture.js';
import { startSimConnectivity, type SimConnectivity } from '../helpers/sim-connectivity.js';

const DRIVER = 'FG-2.0.0.0.0';
let rig: SimConnectivity;
let http: HttpServer;
let url: string;

test.before(async () => {
  rig = await startSimConnectivity({
    env: {
      NESTBOX_COPROC_TIME_SCALE: '50',
      NESTBOX_STABLE_S: '0',
      NESTBOX_SIM_FIRMWARE: 'current',
      NESTBOX_ESP_HOSTED_RELEASE: DRIVER,
    },
  });
  await rig.until((state) => state.connectivity === 'connected', 'connected', 20_000);
  ({ http, url } = await serveRigWeb(rig));
});

test.after(async () => {
  await http?.stop();
  await rig?.close();
});

function upload(image: Uint8Array, query = '') {
  return fetch(`${url}/api/nestbox/v1/firmware${query}`, {
    method: 'POST',
    headers: { authorization: 'Bearer owner-token', 'content-type': 'application/octet-stream' },
    body: image,
  });
}

test('a running firmware of another release than the driver: mismatch, with what to do', async () => {
  await rig.until((state) => state.coprocessor.release.status !== 'unknown', 'release checked');
  const { release } = rig.device.get().coprocessor;
  assert.is(release.status, 'mismatch');
  assert.is(release.driver, DRIVER);
  assert.is(release.firmware, 'FG-1.0.0.0.0');
  assert.match(release.detail!, /Flash firmware FG-2\.0\.0\.0\.0/);
  assert.match(release.detail!, /scripts\/install\.sh/);
});

test('an OTA image of another release is refused before anything is written', async () => {
  const otaFile = join(rig.config.dataDir, 'ota.bin');
  const requests: string[] = [];
  rig.sim.device.on('request', (name) => requests.push(name));
  for (const version of ['FG-1.0.0.0.0', 'v5.1.2', 'FG-2.0.0.0.0-dirty']) {
    try {
      await rig.connectivity.firmware.start(buildFirmwareImage({ version }));
      assert.unreachable(`${version} was accepted`);
    } catch (error) {
      assert.instance(error, CommandError);
      assert.is((error as CommandError).kind, 'invalid');
      assert.match((error as Error).message, new RegExp(`the box's driver is ${DRIVER}`));
      assert.match((error as Error).message, /force/);
    }
  }
  const answer = await upload(buildFirmwareImage({ version: 'FG-1.0.0.0.0' }));
  assert.is(answer.status, 422);
  assert.match(((await answer.json()) as { error: string }).error, /ESP-Hosted release FG-1\.0\.0\.0\.0/);
  assert.is((await upload(buildFirmwareImage({ version: DRIVER }), '?force=maybe')).status, 422);
  assert.equal(
    requests.filter((name) => name.startsWith('ota')),
    [],
    'nothing reached the chip',
  );
  assert.not.ok(existsSync(otaFile), 'nothing was written');
  assert.is(rig.device.get().coprocessor.ota.phase, 'idle');
  assert.is(rig.device.get().coprocessor.firmware_file, null, 'a refused upload is not kept either');
});

test("forced, an image of another release is written; one of the driver's release then makes the check match", async () => {
  await rig.connectivity.firmware.start(buildFirmwareImage({ version: 'FG-1.0.1.0.0', bytes: 9000 }), { force: true });
  await rig.until((state) => state.coprocessor.firmware_version === 'FG-1.0.1.0.0', 'forced image running', 20_000);
  assert.is(rig.device.get().coprocessor.release.status, 'mismatch');
  await rig.until((state) => state.connectivity === 'connected', 'back online', 20_000);
  await rig.connectivity.firmware.start(buildFirmwareImage({ version: DRIVER, bytes: 9000 }));
  await rig.until((state) => state.coprocessor.release.status === 'match', 'release matches', 20_000);
  assert.is(rig.device.get().coprocessor.release.firmware, DRIVER);
});

test('phones on the setup AP from events 306/304: in softap.stations at once (no signal yet), the poll then confirms', async () => {
  rig.connectivity.runner.enterSetupMode();
  await rig.until((state) => state.softap.active, 'setup AP up', 20_000);
  const mac = '02:aa:bb:cc:dd:01';
  const joined = new Promise<ReturnType<typeof rig.device.get>>((resolve) => {
    const onChange = () => {
      const state = rig.device.get();
      if (!state.softap.stations.some((station) => station.mac === mac)) return;
      rig.device.off('change', onChange);
      resolve(state);
    };
    rig.device.on('change', onChange);
  });
  assert.is(rig.sim.joinSoftAp({ mac, rssi: -41 }), mac);
  const seen = await joined;
  // The poll would give the signal level: without it, the station came from the event.
  assert.equal(
    seen.softap.stations.find((station) => station.mac === mac),
    { mac, rssi: null },
    'from the event',
  );
  await rig.until((state) => state.softap.stations.some((s) => s.mac === mac && s.rssi === -41), 'poll confirms');
  assert.ok(rig.sim.leaveSoftAp(mac));
  await rig.until((state) => !state.softap.stations.some((s) => s.mac === mac), 'left', 2000);
});

test.run();
