/**
 * The client against the simulator over a real pseudo-terminal, for one framing. Shared by
 * link-serial.test.ts and link-esps.test.ts (separate processes, so they run in parallel).
 */
import { suite } from '../helpers/named-suite.js';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { CoprocError, type CoprocEvents } from '../../daemon/coproc/api.js';
import type { CoprocClient } from '../../daemon/coproc/client.js';
import type { FramingKind } from '../../daemon/coproc/framing/index.js';
import type { OperationName } from '../../daemon/coproc/operations.js';
import { openCoprocLink, waitForLink } from '../../daemon/coproc/link.js';
import { OtaError, OtaUpdate, type OtaProgress } from '../../daemon/coproc/ota.js';
import { SEC, SIM_NETWORKS } from '../../daemon/coproc/sim/index.js';
import { silentLogger } from '../../daemon/log/logger.js';
import { startSimOnPty, type SimOnPty } from '../helpers/pty.js';

const TIME_SCALE = 50;

export function nextEvent<K extends keyof CoprocEvents>(
  client: CoprocClient,
  name: K,
  timeoutMs = 2000,
  match: (...args: CoprocEvents[K]) => boolean = () => true,
): Promise<CoprocEvents[K]> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      client.off(name, listener as never);
      reject(new Error(`no ${String(name)} event within ${timeoutMs} ms`));
    }, timeoutMs);
    const listener = (...args: CoprocEvents[K]) => {
      if (!match(...args)) return;
      clearTimeout(timer);
      client.off(name, listener as never);
      resolve(args);
    };
    client.on(name, listener as never);
  });
}

/** A client on the simulator's PTY once the simulator answers. */
export async function clientOnPty(
  pty: SimOnPty,
  framing: FramingKind,
  timeouts?: Partial<Record<OperationName, number>>,
): Promise<CoprocClient> {
  const target =
    framing === 'serial'
      ? { kind: 'serial' as const, path: pty.path, baud: 921600 }
      : { kind: 'esps' as const, path: pty.path };
  const client = openCoprocLink(target, { log: silentLogger, minBackoffMs: 20, maxBackoffMs: 200, timeouts }).client;
  await waitForLink(client, 3000);
  // The simulator may still be booting (a request it gets then is never answered) and its
  // announcement may still be on the way: ask until it answers.
  for (let tries = 0; ; tries += 1) {
    try {
      await client.call('getMode', {}, { timeoutMs: 250 });
      return client;
    } catch (error) {
      if (tries > 20) throw error;
    }
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function rejects(promise: Promise<unknown>, check: (error: CoprocError) => void): Promise<CoprocError> {
  try {
    await promise;
  } catch (error) {
    assert.instance(error, CoprocError);
    check(error as CoprocError);
    return error as CoprocError;
  }
  assert.unreachable('expected a CoprocError');
  throw new Error('unreachable');
}

const home = { ssid: SIM_NETWORKS.home.ssid, password: SIM_NETWORKS.home.passphrase };

export function linkSuite(framing: FramingKind) {
  const it = suite<{ pty: SimOnPty; client: CoprocClient }>(`link over a PTY (${framing} framing)`);

  it.before(async (context) => {
    context.pty = await startSimOnPty({ framing, timeScale: TIME_SCALE });
    context.client = await clientOnPty(context.pty, framing);
  });

  it.after(async ({ pty, client }) => {
    await client.close();
    await pty.close();
  });

  it('GetMACAddress / SetMacAddress: MACs as lowercase text, a multicast address refused, a malformed one refused locally without blocking the queue', async ({
    client,
  }) => {
    assert.is(await client.getMac('station'), '24:0a:c4:12:34:56');
    assert.is(await client.getMac('softap'), '24:0a:c4:12:34:57');
    await client.setMac('station', 'AA:BB:CC:00:11:22');
    assert.is(await client.getMac('station'), 'aa:bb:cc:00:11:22');
    await rejects(client.setMac('station', '01:00:5e:00:00:01'), (e) => {
      assert.is(e.kind, 'device');
      assert.is(e.code, -1);
    });
    await rejects(client.setMac('station', 'not-a-mac'), (e) => assert.is(e.kind, 'invalid'));
    assert.is(await client.getMac('station'), 'aa:bb:cc:00:11:22');
  });

  it('GetWifiMode / SetWifiMode: enums by name', async ({ client }) => {
    await client.setMode('softap');
    assert.is(await client.getMode(), 'softap');
    await client.setMode('none');
    assert.is(await client.getMode(), 'none');
  });

  it('GetAPScanList: the networks in range, strongest first; hidden with an empty name; a non-UTF-8 SSID byte for byte; the scan switches the station on', async ({
    client,
  }) => {
    const entries = await client.scan();
    assert.is(entries.length, 5);
    assert.equal(
      entries.map((e) => e.rssi),
      [...entries.map((e) => e.rssi)].sort((a, b) => b - a),
    );
    const homeEntry = entries.find((e) => e.ssid === 'HomeNet')!;
    assert.equal([homeEntry.bssid, homeEntry.channel, homeEntry.security], [SIM_NETWORKS.home.bssid, 6, 'wpa2_psk']);
    assert.is(entries.find((e) => e.bssid === SIM_NETWORKS.hidden.bssid)!.ssid, '');
    const latin1 = entries.find((e) => e.bssid === SIM_NETWORKS.latin1.bssid)!;
    assert.equal([...latin1.ssidBytes], [...SIM_NETWORKS.latin1.ssidBytes]);
    assert.is(latin1.ssid, 'Café-Gast'); // not UTF-8 on the air: shown as Latin-1
    assert.is(latin1.security, 'wpa_wpa2_psk');
    assert.is(await client.getMode(), 'station');
  });

  it('ConnectAP / GetAPConfig / DisconnectAP: wrong passphrase is resp −1; success gives the MAC; the SSID comes back without its NUL', async ({
    client,
  }) => {
    assert.is(await client.getApConfig(), null);
    await rejects(client.connectAp({ ssid: home.ssid, password: 'wrong-password' }), (e) => {
      assert.is(e.kind, 'device');
      assert.is(e.code, -1);
      assert.match(e.message, /ConnectAP/);
    });
    assert.equal(await client.connectAp(home), { mac: await client.getMac('station') });
    const config = (await client.getApConfig())!;
    assert.equal(
      [config.ssid, config.bssid, config.channel, config.rssi, config.security],
      ['HomeNet', SIM_NETWORKS.home.bssid, 6, -48, 'wpa2_psk'],
    );
    await client.connectAp({ ssid: SIM_NETWORKS.hidden.ssid, password: SIM_NETWORKS.hidden.passphrase });
    assert.is((await client.getApConfig())!.ssid, 'AtticLab');
    await client.connectAp({ ssid: SIM_NETWORKS.latin1.ssidBytes, password: SIM_NETWORKS.latin1.passphrase });
    assert.equal([...(await client.getApConfig())!.ssidBytes], [...SIM_NETWORKS.latin1.ssidBytes]);
    await client.disconnectAp();
    await rejects(client.disconnectAp(), (e) => assert.is(e.code, -1));
    assert.is(await client.getApConfig(), null);
  });

  it('Soft AP: start, read back, an empty station list is success, phones join, one leaves (event 304), stop', async ({
    client,
    pty,
  }) => {
    await client.setMode('none');
    const config = {
      ssid: 'Nestbox-Setup',
      password: 'setup-pass-1',
      channel: 6,
      security: 'wpa2_psk' as const,
      maxConnections: 4,
      ssidHidden: false,
      bandwidth: 'ht20' as const,
    };
    assert.equal(await client.startSoftAp(config), { mac: '24:0a:c4:12:34:57' });
    assert.equal(await client.getSoftApConfig(), config);
    assert.is(await client.getMode(), 'softap');
    assert.equal(await client.softApStations(), []);
    const phone1 = pty.sim.joinSoftAp({ rssi: -40 })!;
    const phone2 = pty.sim.joinSoftAp({ mac: '02:aa:bb:cc:dd:ee', rssi: -60 })!;
    assert.equal(await client.softApStations(), [
      { mac: phone1, rssi: -40 },
      { mac: phone2, rssi: -60 },
    ]);
    const left = nextEvent(client, 'softApStationDisconnected');
    pty.sim.leaveSoftAp(phone2);
    assert.equal(await left, [{ mac: '02:aa:bb:cc:dd:ee', reason: 0 }]);
    assert.is((await client.softApStations()).length, 1);
    await client.stopSoftAp();
    assert.is(await client.getMode(), 'none');
    await rejects(client.softApStations(), (e) => assert.is(e.code, -1));
    await rejects(client.getSoftApConfig(), (e) => assert.is(e.code, -1));
  });

  it('SetSoftAPVendorSpecificIE: a vendor element is accepted, a non-vendor element id refused', async ({ client }) => {
    const ie = {
      enable: true,
      type: 'beacon' as const,
      index: 0 as const,
      elementId: 221,
      length: 7,
      oui: Uint8Array.from([0x24, 0x0a, 0xc4]),
      ouiType: 1,
      payload: Uint8Array.from([1, 2, 3]),
    };
    await client.setVendorIe(ie);
    await rejects(client.setVendorIe({ ...ie, elementId: 10 }), (e) => assert.is(e.code, -1));
    await client.setVendorIe({ ...ie, enable: false });
  });

  it('Power save and transmit power: names, dBm in 0.25 dBm steps, out of range is resp 5', async ({ client }) => {
    assert.is(await client.getPowerSave(), 'min_modem');
    await client.setPowerSave('max_modem');
    assert.is(await client.getPowerSave(), 'max_modem');
    await rejects(client.setPowerSave('none'), (e) => assert.is(e.code, -1));
    await client.setMaxTxPower(20);
    assert.is(await client.getTxPower(), 20);
    await client.setMaxTxPower(13.5); // 54 quarter-dBm: the driver rounds to a level it supports
    assert.is(await client.getTxPower(), 13);
    await rejects(client.setMaxTxPower(30), (e) => {
      assert.is(e.code, 5);
      assert.match(e.message, /out of range/);
    });
  });

  it('ConfigHeartbeat: the first event after one period, numbered from 0; disabling stops them', async ({ client }) => {
    const numbers: number[] = [];
    const listener = ({ number }: { number: number }) => numbers.push(number);
    client.on('heartbeat', listener);
    await client.configHeartbeat(true, 1); // clamped to 10 s device time = 200 ms here
    await nextEvent(client, 'heartbeat', 2000, ({ number }) => number === 1);
    await client.configHeartbeat(false);
    const seen = numbers.length;
    await sleep(300);
    client.off('heartbeat', listener);
    assert.equal(numbers.slice(0, 2), [0, 1]);
    assert.is(numbers.length, seen);
  });

  it('Event 303: a vanished access point drops the station after the beacon timeout (reason 200); a kick carries its reason', async ({
    client,
    pty,
  }) => {
    await client.connectAp(home);
    const lost = nextEvent(client, 'stationDisconnected');
    pty.sim.vanishNetwork(home.ssid);
    assert.equal(await lost, [{ reason: 200 }]);
    assert.is(await client.getApConfig(), null);
    await rejects(client.connectAp(home), (e) => assert.is(e.code, -1));
    pty.sim.restoreNetwork(home.ssid);
    await client.connectAp(home);
    const kicked = nextEvent(client, 'stationDisconnected');
    pty.sim.kickStation(15);
    assert.equal(await kicked, [{ reason: 15 }]);
  });

  it('Event 303 after a passphrase change; the saved passphrase is then refused', async ({ client, pty }) => {
    await client.connectAp(home);
    const dropped = nextEvent(client, 'stationDisconnected');
    pty.sim.setPassphrase(home.ssid, 'a-new-passphrase');
    assert.equal(await dropped, [{ reason: 2 }]);
    await rejects(client.connectAp(home), (e) => assert.is(e.code, -1));
    pty.sim.setPassphrase(home.ssid, home.password);
  });

  it('OTA: the image goes in 4000-byte chunks with progress, and success waits for the restart (Event_DevInit)', async ({
    client,
    pty,
  }) => {
    const image = Buffer.concat([Buffer.from([0xe9]), Buffer.alloc(21_000, 0x5a)]);
    const progress: OtaProgress[] = [];
    const update = new OtaUpdate(client, { rebootTimeoutMs: 3000 });
    update.on('progress', (p) => progress.push(p));
    const restarted = nextEvent(client, 'devInit', 3000);
    const result = await update.run(image);
    await restarted;
    assert.is(result.bytes, image.length);
    const writes = progress.filter((p) => p.phase === 'writing');
    assert.equal(
      writes.map((p) => p.bytes),
      [4000, 8000, 12000, 16000, 20000, 21001],
    );
    assert.is(writes.at(-1)!.percent, 100);
    assert.equal(
      progress.map((p) => p.phase).filter((p, i, all) => all[i - 1] !== p),
      ['begin', 'writing', 'ending', 'rebooting', 'done'],
    );
    assert.ok(readFileSync(pty.sim.device.otaPath).equals(image));
  });

  it('OTA: an image that does not verify fails at OTAEnd (resp −1); a file that is no ESP image is refused up front', async ({
    client,
  }) => {
    await client.otaBegin();
    await client.otaWrite(Uint8Array.from([0, 1, 2, 3]));
    await rejects(client.otaEnd(), (e) => {
      assert.is(e.code, -1);
      assert.match(e.message, /OTAEnd/);
    });
    try {
      await new OtaUpdate(client).run(Uint8Array.from([0x7f, 0x45, 0x4c, 0x46]));
      assert.unreachable('should fail');
    } catch (error) {
      assert.instance(error, OtaError);
      assert.is((error as OtaError).step, 'image');
    }
    await rejects(client.otaWrite(Uint8Array.from([1])), (e) => assert.is(e.code, -1)); // no OTABegin
  });

  it('no answer: SetWifiMode with mode ≥ 4 and a vendor IE without payload time out, and the queue moves on', async ({
    client,
  }) => {
    const before = client.counters().timeouts;
    await rejects(client.call('setMode', { mode: 7 }, { timeoutMs: 150 }), (e) => {
      assert.is(e.kind, 'timeout');
      assert.match(e.message, /SetWifiMode/);
    });
    await rejects(client.call('setVendorIe', { enable: true, type: 0, idx: 0 }, { timeoutMs: 150 }), (e) =>
      assert.is(e.kind, 'timeout'),
    );
    assert.is(client.counters().timeouts, before + 2);
    assert.is(typeof (await client.getTxPower()), 'number');
  });

  it('a late answer after its timeout is dropped and counted, not handed to the next caller', async ({ client }) => {
    const before = client.counters().lateResponses;
    await rejects(client.call('scan', {}, { timeoutMs: 5 }), (e) => assert.is(e.kind, 'timeout'));
    const power = await client.getPowerSave(); // queued behind the scan on the device
    assert.ok(['min_modem', 'max_modem'].includes(power));
    await sleep(50);
    assert.is(client.counters().lateResponses, before + 1);
  });

  it('one request in flight: concurrent calls each get their own answer, in order', async ({ client }) => {
    const [mode, power, mac, ps] = await Promise.all([
      client.getMode(),
      client.getTxPower(),
      client.getMac('softap'),
      client.getPowerSave(),
    ]);
    assert.ok(['none', 'station', 'softap', 'apsta'].includes(mode));
    assert.is(typeof power, 'number');
    assert.is(mac, '24:0a:c4:12:34:57');
    assert.ok(['min_modem', 'max_modem'].includes(ps));
  });

  it('garbage on the line is skipped and counted; the link still answers', async ({ client, pty }) => {
    const before = client.counters();
    pty.sim.injectGarbage(3000);
    pty.sim.injectGarbage(Buffer.from('\x01\x08\x00ctrlResp\x02\xff\xff')); // a TLV header promising 65535 bytes
    assert.is(await client.getMac('softap'), '24:0a:c4:12:34:57');
    const after = client.counters();
    assert.ok(after.badFrames + after.badChecksums > before.badFrames + before.badChecksums);
  });

  it('fragments: a scan answer of several kilobytes crosses the link whole', async ({ client, pty }) => {
    const extra = Array.from({ length: 60 }, (_, i) => ({
      ssid: Uint8Array.from(Buffer.from(`Neighbour-${String(i).padStart(2, '0')}-with-a-long-name`)),
      bssid: `02:00:00:00:01:${i.toString(16).padStart(2, '0')}`,
      channel: 1 + (i % 11),
      rssi: -60 - (i % 30),
      security: SEC.wpa2_psk,
      passphrase: 'x'.repeat(8),
      hidden: false,
      inRange: true,
    }));
    pty.sim.device.networks.push(...extra);
    try {
      const entries = await client.scan();
      assert.is(entries.length, 65);
      assert.ok(entries.some((e) => e.ssid === 'Neighbour-59-with-a-long-name'));
    } finally {
      pty.sim.device.networks.splice(-extra.length);
    }
  });

  it("a request larger than the device's 4096-byte buffer is refused before it is sent", async ({ client }) => {
    await rejects(client.call('otaWrite', { ota_data: new Uint8Array(4090) }), (e) => {
      assert.is(e.kind, 'invalid');
      assert.match(e.message, /4096/);
    });
    await rejects(client.otaWrite(new Uint8Array(4001)), (e) => assert.is(e.kind, 'invalid'));
  });

  it('current firmware messages: the reason read from field 5, event 305 taken, an unasked 223 dropped; ids and fields beyond the schema skipped and counted, never fatal', async ({
    client,
    pty,
  }) => {
    const before = client.counters();
    const line = pty.sim.link.framing;
    const disconnected = nextEvent(client, 'stationDisconnected');
    const connected = nextEvent(client, 'stationConnected');
    pty.sim.link.injectGarbage(
      line.encode('ctrlEvnt', Buffer.from('080310af02' + '1809' + 'fa12' + '03' + '28c901', 'hex')),
    );
    pty.sim.link.injectGarbage(line.encode('ctrlEvnt', Buffer.from('080310b1028a13020801', 'hex')));
    pty.sim.link.injectGarbage(line.encode('ctrlResp', Buffer.from('080210df01fa0d00', 'hex')));
    // CtrlMsg field 20 and event id 309: newer than any firmware we know.
    pty.sim.link.injectGarbage(line.encode('ctrlEvnt', Buffer.from('080310b502a00101aa13020801', 'hex')));
    assert.equal(await disconnected, [{ reason: 201 }]);
    assert.is((await connected)[0].ssid, '');
    assert.is(await client.getMode(), await client.getMode());
    const after = client.counters();
    assert.is(after.unknownFields - before.unknownFields, 2); // field 20, the 309 payload
    assert.is(after.unknownMessages - before.unknownMessages, 1);
    assert.is(after.lateResponses - before.lateResponses, 1);
  });

  it('device reset mid-request: the request fails at once with a clear error, and devInit follows', async ({
    client,
    pty,
  }) => {
    pty.sim.clock.timeScale = 1; // real boot time (300 ms): the request is clearly older than the announcement
    try {
      pty.sim.device.once('request', () => setTimeout(() => pty.sim.reset(), 5));
      const restarted = nextEvent(client, 'devInit', 3000);
      const started = Date.now();
      await rejects(client.scan(), (e) => {
        assert.is(e.kind, 'link_down');
        assert.match(e.message, /restarted/);
      });
      assert.ok(Date.now() - started < 5000);
      await restarted;
    } finally {
      pty.sim.clock.timeScale = TIME_SCALE;
    }
    assert.is(await client.getMode(), 'none');
  });

  it('device reset mid-OTA: the update stops with an error naming the step', async ({ client, pty }) => {
    pty.sim.clock.timeScale = 1;
    try {
      let writes = 0;
      const onRequest = (name: string) => {
        if (name === 'otaWrite' && ++writes === 3) pty.sim.reset();
      };
      pty.sim.device.on('request', onRequest);
      const image = Buffer.concat([Buffer.from([0xe9]), Buffer.alloc(40_000, 1)]);
      try {
        await new OtaUpdate(client, { rebootTimeoutMs: 2000 }).run(image);
        assert.unreachable('the update should fail');
      } catch (error) {
        assert.instance(error, OtaError);
        assert.match((error as Error).message, /OTAWrite .*restarted/);
      } finally {
        pty.sim.device.off('request', onRequest);
      }
      for (const deadline = Date.now() + 3000; pty.sim.snapshot().otaActive && Date.now() < deadline;) await sleep(10);
      assert.is(pty.sim.snapshot().otaActive, false);
    } finally {
      pty.sim.clock.timeScale = TIME_SCALE;
    }
  });

  it('unplug and replug: link down, calls fail fast, then link up and the device answers again', async ({
    client,
    pty,
  }) => {
    const down = nextEvent(client, 'link', 2000, ({ up }) => !up);
    await pty.unplug();
    await down;
    assert.is(client.linkUp, false);
    await rejects(client.getMode(), (e) => assert.is(e.kind, 'link_down'));
    const up = nextEvent(client, 'link', 3000, ({ up: isUp }) => isUp);
    await pty.replug();
    await up;
    while (pty.sim.snapshot().booting) await sleep(5); // the replug power-cycled it
    await sleep(20);
    assert.is(await client.getMode(), 'none');
    assert.ok(client.counters().linkDrops >= 1);
  });

  return it;
}
