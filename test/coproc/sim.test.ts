/**
 * The simulator against the firmware's behaviour (docs/architecture.md, "Coprocessor link"), byte level, in-process:
 * raw requests in, raw answers out (including the requests the firmware leaves unanswered).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { decodeCtrlMsg, encodeCtrlMsg, type Body, type CtrlMessage } from '../../daemon/coproc/codec.js';
import { createFraming, type FramingKind } from '../../daemon/coproc/framing/index.js';
import { OPERATION, type OperationName } from '../../daemon/coproc/operations.js';
import { Simulator, type SimScenario } from '../../daemon/coproc/sim/index.js';
import { tempDir } from '../helpers/paths.js';

const dir = tempDir('nestbox-sim-test-');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until `check` holds (the simulator runs on real timers, and a loaded machine is slow). */
async function until(check: () => boolean, timeoutMs = 3000): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; !check() && Date.now() < deadline;) await sleep(5);
}

function rig(options: { framing?: FramingKind; scenario?: SimScenario } = {}) {
  const framing = options.framing ?? 'esps';
  const sim = new Simulator({
    framing,
    timeScale: 100,
    scenario: options.scenario,
    otaPath: join(dir.path, `ota-${Math.random()}.bin`),
  });
  const answers: CtrlMessage[] = [];
  const raw: string[] = [];
  const boots: number[] = [];
  const host = createFraming(framing, 'host', {
    frame: (_endpoint, data) => {
      raw.push(data.toString('hex'));
      answers.push(decodeCtrlMsg(data));
    },
    fault: () => assert.unreachable('the simulator sent a bad frame'),
    privInit: (init) => boots.push(init.chipId ?? -1),
  });
  sim.attach((bytes) => host.push(bytes));
  const send = (pb: Uint8Array) => sim.receive(host.encode('ctrlResp', pb));
  /** The answer to one request, or null when none came within `waitMs`. */
  const ask = async (name: OperationName, body: Body = {}, waitMs = 400): Promise<Body | null> => {
    const before = answers.length;
    const op = OPERATION[name];
    send(encodeCtrlMsg(1, op.id, op.requestField, body));
    const answer = () => answers.slice(before).find((m) => m.msgId === op.id + 100);
    await until(() => answer() !== undefined, waitMs);
    return answer()?.body ?? null;
  };
  return { sim, answers, raw, boots, send, ask };
}

test('no answer at all: unknown id, undecodable protobuf, missing sub-messages, SetMode ≥ 4, SetMac without mac, vendor IE without payload', async () => {
  const { send, answers, ask } = rig();
  send(encodeCtrlMsg(1, 122, null)); // newer-firmware request id
  send(Buffer.from('0801ffff', 'hex')); // undecodable
  for (const name of ['getMac', 'setMode', 'connectAp', 'startSoftAp', 'setPowerSave', 'setVendorIe'] as const)
    send(encodeCtrlMsg(1, OPERATION[name].id, null));
  assert.is(await ask('setMode', { mode: 4 }), null);
  assert.is(await ask('setMac', { mode: 1 }), null);
  assert.is(
    await ask('setVendorIe', {
      enable: true,
      type: 0,
      idx: 0,
      vendor_ie_data: { element_id: 221, length: 4, vendor_oui: Uint8Array.from([1, 2, 3]) },
    }),
    null,
  );
  assert.equal(answers, []);
  assert.equal(await ask('getMode'), { mode: 0, resp: 0 }, 'the device still answers');
});

test('answers carry msg_type Resp and the request id + 100; resp 0 is not on the wire; msg_type of the request is ignored', async () => {
  const { send, raw, answers } = rig();
  send(encodeCtrlMsg(0, OPERATION.setMode.id, OPERATION.setMode.requestField, { mode: 1 })); // like the host library: no msg_type
  await sleep(20);
  assert.equal(raw, ['080210cc01e20c00']);
  assert.equal([answers[0].msgType, answers[0].msgId], [2, 204]);
});

test('GetAPConfig when not connected is resp 1; SetWifiMaxTxPower out of [8, 84] is resp 5; GetMAC for mode 3 is −1', async () => {
  const { ask } = rig();
  assert.is((await ask('getApConfig'))!.resp, 1);
  assert.is((await ask('setMaxTxPower', { wifi_max_tx_power: 7 }))!.resp, 5);
  assert.is((await ask('setMaxTxPower', { wifi_max_tx_power: 85 }))!.resp, 5);
  assert.is((await ask('setMaxTxPower', { wifi_max_tx_power: 84 }))!.resp, 0);
  assert.is((await ask('getMac', { mode: 3 }))!.resp, -1);
});

test('heartbeat: the period is clamped to 10–3600 s, numbering restarts at 0, off after disable', async () => {
  const { sim, ask } = rig();
  assert.is((await ask('configHeartbeat', { enable: true, duration: 1 }))!.resp, 0);
  assert.equal(sim.snapshot().heartbeat, { periodS: 10, next: 0 });
  await ask('configHeartbeat', { enable: true, duration: 99999 });
  assert.equal(sim.snapshot().heartbeat, { periodS: 3600, next: 0 });
  await ask('configHeartbeat', { enable: false });
  assert.is(sim.snapshot().heartbeat, null);
});

test('mode side effects: scan switches the station on (APSTA with a soft AP); stopping the soft AP leaves STA; connect keeps the soft AP', async () => {
  const { ask, sim } = rig();
  await ask('scan');
  assert.is(sim.snapshot().mode, 1);
  await ask('startSoftAp', {
    ssid: Buffer.from('Setup'),
    pwd: Buffer.from('12345678'),
    chnl: 1,
    sec_prot: 3,
    max_conn: 2,
    bw: 1,
  });
  assert.is(sim.snapshot().mode, 3);
  await ask('stopSoftAp');
  assert.is(sim.snapshot().mode, 1);
  await ask('setMode', { mode: 0 });
  await ask('startSoftAp', {
    ssid: Buffer.from('Setup'),
    pwd: Buffer.from('12345678'),
    chnl: 1,
    sec_prot: 3,
    max_conn: 2,
    bw: 1,
  });
  assert.is(sim.snapshot().mode, 2);
  await ask('connectAp', { ssid: Buffer.from('CoffeeShop Free') });
  assert.is(sim.snapshot().mode, 3);
  assert.is(sim.snapshot().station, 'CoffeeShop Free');
});

test('soft AP: max_conn is the limit for phones joining; more than 10 is refused; short or long passphrases are refused', async () => {
  const { ask, sim } = rig();
  const start = (fields: Body) =>
    ask('startSoftAp', {
      ssid: Buffer.from('Setup'),
      pwd: Buffer.from('12345678'),
      chnl: 6,
      sec_prot: 3,
      max_conn: 10,
      bw: 1,
      ...fields,
    });
  assert.is((await start({ max_conn: 11 }))!.resp, -1);
  assert.is((await start({ pwd: Buffer.from('short') }))!.resp, -1);
  assert.is((await start({ pwd: Buffer.alloc(65, 0x61) }))!.resp, -1);
  assert.is((await start({ sec_prot: 1 }))!.resp, -1); // WEP
  assert.is((await start({}))!.resp, 0);
  const joined = Array.from({ length: 11 }, () => sim.joinSoftAp());
  assert.is(joined.filter(Boolean).length, 10);
  assert.is(joined[10], null);
  assert.is((await ask('softApStations'))!.num, 10);
});

test('the firmware queues at most 10 requests; more are dropped unanswered', async () => {
  const { send, answers } = rig();
  const scan = encodeCtrlMsg(1, OPERATION.scan.id, OPERATION.scan.requestField, {});
  for (let i = 0; i < 15; i++) send(scan);
  const scans = () => answers.filter((m) => m.msgId === 205).length;
  await until(() => scans() >= 11);
  await sleep(200); // and no more come
  assert.is(scans(), 11); // one being served + 10 waiting
});

test('OTAEnd on a valid image reboots the device 5 s (device time) later: PRIV INIT, then Event_DevInit, state back to defaults', async () => {
  const { ask, answers, boots, sim } = rig({ framing: 'serial' });
  await ask('setMaxTxPower', { wifi_max_tx_power: 40 });
  await ask('otaBegin');
  await ask('otaWrite', { ota_data: Uint8Array.from([0xe9, 1, 2, 3]) });
  assert.is((await ask('otaEnd'))!.resp, 0);
  assert.equal(boots, []);
  // 5 s of device time: wait for the reboot itself rather than a fixed real-time delay.
  await until(() => boots.length > 0);
  assert.equal(boots, [0]);
  await until(() => answers.some((m) => m.msgId === 301));
  assert.ok(answers.some((m) => m.msgId === 301 && m.msgType === 3));
  assert.is(sim.device.lastImageBytes, 4);
  assert.is((await ask('getTxPower'))!.wifi_curr_tx_power, 80);
});

test('scenario controls: heartbeats stop while the device keeps answering; a frozen device answers nothing until it thaws', async () => {
  const { sim, ask, answers } = rig();
  await ask('configHeartbeat', { enable: true, duration: 10 }); // 100 ms at this time scale
  const beats = () => answers.filter((m) => m.msgId === 302).length;
  await until(() => beats() >= 2);
  assert.ok(beats() >= 2);
  sim.setHeartbeats(false);
  const stoppedAt = beats();
  await sleep(250);
  assert.is(beats(), stoppedAt);
  assert.is((await ask('getMode'))!.resp, 0);
  sim.freeze(true);
  assert.is(await ask('getMode'), null);
  sim.freeze(false);
  sim.setHeartbeats(true);
  assert.is((await ask('getMode'))!.resp, 0);
  await until(() => beats() > stoppedAt);
  assert.ok(beats() > stoppedAt);
  await ask('configHeartbeat', { enable: false });
});

test('scenario no_networks: the scan finds nothing (resp −1); scenario unresponsive: nothing is answered', async () => {
  assert.is((await rig({ scenario: 'no_networks' }).ask('scan'))!.resp, -1);
  assert.is(await rig({ scenario: 'unresponsive' }).ask('getMode'), null);
});

test("a request over the device's 4096-byte buffer is never handled (esps framing)", async () => {
  const { send, answers } = rig();
  send(encodeCtrlMsg(1, OPERATION.otaWrite.id, OPERATION.otaWrite.requestField, { ota_data: new Uint8Array(4100) }));
  await sleep(20);
  assert.equal(answers, []);
});

test.after(() => dir.remove());

test.run();
