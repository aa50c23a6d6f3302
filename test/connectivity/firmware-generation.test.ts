/**
 * Which firmware generation answers is found at every initialisation and shown in the device
 * state; NESTBOX_WIFI_COUNTRY is applied where the firmware supports it (the current one), again
 * after every reset — the embedded simulator in either generation, the real client and subsystem.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SIM_HOME, startSimConnectivity } from '../helpers/sim-connectivity.js';

const ENV = { NESTBOX_COPROC_TIME_SCALE: '50', NESTBOX_STABLE_S: '0', NESTBOX_WIFI_COUNTRY: 'de' };

test('documented firmware: GetFwVersion unanswered → "documented"; the country is left alone; the box still connects', async () => {
  const rig = await startSimConnectivity({ env: { ...ENV, NESTBOX_SIM_FIRMWARE: 'documented' } });
  try {
    await rig.until((s) => s.connectivity === 'connected', 'connected');
    const { coprocessor } = rig.device.get();
    assert.is(coprocessor.firmware_generation, 'documented');
    assert.is(coprocessor.firmware, 'ESP-Hosted-FG (ESP32)');
    assert.is(rig.sim.device.snapshot().country, '01');
    // The probe's silence is not a lost device.
    assert.is(coprocessor.link, 'up');
  } finally {
    await rig.close();
  }
});

test('a chip that announced its boot before connectivity started is still known by its chip', async () => {
  const rig = await startSimConnectivity({ env: { ...ENV, NESTBOX_SIM_FIRMWARE: 'documented' }, afterBoot: true });
  try {
    await rig.until((s) => s.coprocessor.firmware_generation === 'documented', 'documented firmware detected');
    assert.is(rig.device.get().coprocessor.chip, 'ESP32');
    assert.is(rig.device.get().coprocessor.firmware, 'ESP-Hosted-FG (ESP32)');
  } finally {
    await rig.close();
  }
});

test('current firmware: "current" with its version; the country applied at start and again after a reset', async () => {
  const rig = await startSimConnectivity({ env: { ...ENV, NESTBOX_SIM_FIRMWARE: 'current' } });
  try {
    await rig.until((s) => s.coprocessor.firmware_generation === 'current', 'current firmware detected');
    await rig.until(() => rig.sim.device.snapshot().country === 'DE', 'country DE applied');
    assert.is(rig.device.get().coprocessor.firmware, 'ESP-Hosted-FG FG-1.0.0.0.0 (ESP32)');
    rig.sim.reset();
    await rig.until(() => rig.sim.device.snapshot().country === '01', 'the reset forgets it');
    await rig.until(() => rig.sim.device.snapshot().country === 'DE', 'country DE applied again');
  } finally {
    await rig.close();
  }
});

test("current firmware whose GetFwVersion goes unanswered (a busy link): the boot announcement's version still says current, and connects are read from the events", async () => {
  const rig = await startSimConnectivity({ env: { ...ENV, NESTBOX_SIM_FIRMWARE: 'current' }, homeSaved: false });
  try {
    await rig.until((s) => s.connectivity === 'setup_ap', 'setup AP');
    rig.sim.device.handlers.getFwVersion = () => null;
    rig.sim.reset();
    await rig.until((s) => s.coprocessor.firmware_generation === 'current' && s.softap.active, 'set up again');
    await rig.until(() => rig.sim.device.snapshot().country === 'DE', 'country applied: taken as current');
    const wrong = await rig.connectivity.portal.submitNetwork({
      ssid: new TextEncoder().encode(SIM_HOME.ssid),
      passphrase: 'not-the-passphrase',
      hidden: false,
    });
    await rig.until(() => rig.connectivity.portal.status().error === 'auth', 'refused password shown');
    assert.is((await rig.networks.get(wrong.id))?.lastSuccessAt, null);
  } finally {
    await rig.close();
  }
});

test.run();
