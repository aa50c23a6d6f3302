/**
 * Both ESP-Hosted-FG firmware generations over a real pseudo-terminal: the documented one (the
 * seed-era protocol) and the current one (2024 on: uid, ids 122–125, events 305–306, the disconnect
 * reason in its own field, asynchronous ConnectAP with the firmware's own retries).
 */
import { suite } from '../helpers/named-suite.js';
import * as assert from 'uvu/assert';
import { CoprocError } from '../../daemon/coproc/api.js';
import type { CoprocClient } from '../../daemon/coproc/client.js';
import { encodeCtrlMsg } from '../../daemon/coproc/codec.js';
import type { FirmwareGeneration } from '../../daemon/coproc/operations.js';
import { DISCONNECT_REASON, SIM_NETWORKS, SIM_TIMING } from '../../daemon/coproc/sim/index.js';
import { startSimOnPty, type SimOnPty } from '../helpers/pty.js';
import { clientOnPty, nextEvent } from './link-suite.js';

const TIME_SCALE = 50;
/** The documented firmware never answers the current firmware's ids: keep those waits short. */
const UNANSWERED_MS = 400;
const home = { ssid: SIM_NETWORKS.home.ssid, password: SIM_NETWORKS.home.passphrase };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function rejection(promise: Promise<unknown>): Promise<CoprocError> {
  try {
    await promise;
  } catch (error) {
    assert.instance(error, CoprocError);
    return error as CoprocError;
  }
  throw new Error('expected a CoprocError');
}

function generationSuite(firmware: FirmwareGeneration) {
  const it = suite<{ pty: SimOnPty; client: CoprocClient }>(`${firmware} firmware over a PTY`);

  it.before(async (context) => {
    context.pty = await startSimOnPty({ framing: 'serial', timeScale: TIME_SCALE, firmware });
    context.client = await clientOnPty(context.pty, 'serial', {
      enableDisable: UNANSWERED_MS,
      getFwVersion: UNANSWERED_MS,
      setCountryCode: UNANSWERED_MS,
      getCountryCode: UNANSWERED_MS,
    });
  });

  it.after(async ({ pty, client }) => {
    await client.close();
    await pty.close();
  });

  it('the boot announcement carries the firmware version only from the current firmware', async ({ client, pty }) => {
    const boot = nextEvent(client, 'boot', 3000);
    const devInit = nextEvent(client, 'devInit', 3000);
    pty.sim.reset();
    const [announced] = await boot;
    assert.is(announced.chip, 'ESP32');
    assert.is(announced.firmwareVersion, firmware === 'current' ? 'FG-1.0.0.0.0' : null);
    await devInit;
  });

  if (firmware === 'documented') {
    it('GetFwVersion, Set/GetCountryCode, EnableDisable: never answered (timeouts), the link keeps working', async ({
      client,
    }) => {
      for (const call of [
        () => client.getFwVersion(),
        () => client.setCountryCode('DE'),
        () => client.getCountryCode(),
        () => client.enableDisable('wifi', true),
      ]) {
        assert.is((await rejection(call())).kind, 'timeout');
      }
      assert.is(await client.getMode(), 'none');
    });

    it('power save "none" is PS_Invalid to this firmware: refused', async ({ client }) => {
      assert.is((await rejection(client.setPowerSave('none'))).code, -1);
      assert.is(await client.getPowerSave(), 'min_modem');
    });

    it('ConnectAP answers with the outcome; a refused passphrase is resp −1; a kick carries its reason in resp', async ({
      client,
      pty,
    }) => {
      assert.is((await rejection(client.connectAp({ ...home, password: 'wrong-passphrase' }))).code, -1);
      await client.connectAp(home);
      const kicked = nextEvent(client, 'stationDisconnected');
      pty.sim.kickStation(DISCONNECT_REASON.beaconTimeout);
      assert.equal(await kicked, [{ reason: 200 }]);
    });
  } else {
    it('GetFwVersion: name and five numbers', async ({ client }) => {
      assert.equal(await client.getFwVersion(), { name: 'FG', parts: [1, 0, 0, 0, 0], text: 'FG-1.0.0.0.0' });
    });

    it('Set/GetCountryCode: two letters kept; a malformed one refused before the wire, one the firmware refuses is its resp', async ({
      client,
    }) => {
      assert.is(await client.getCountryCode(), '01');
      await client.setCountryCode('DE');
      assert.is(await client.getCountryCode(), 'DE');
      assert.is((await rejection(client.setCountryCode('de'))).kind, 'invalid');
      const raw = await client.call('setCountryCode', { country: Uint8Array.from(Buffer.from('D3')) });
      assert.is(raw.resp, 0x102);
      assert.is(await client.getCountryCode(), 'DE');
    });

    it('EnableDisable: Wi-Fi off stops the station; an unknown feature is refused', async ({ client }) => {
      await client.enableDisable('bluetooth', true);
      await client.enableDisable('wifi', false);
      assert.is(await client.getMode(), 'none');
      const raw = await client.call('enableDisable', { feature: 9, enable: true });
      assert.is(raw.resp, -1);
    });

    it('power save "none" is NO_PS: accepted and read back', async ({ client }) => {
      await client.setPowerSave('none');
      assert.is(await client.getPowerSave(), 'none');
      await client.setPowerSave('min_modem');
    });

    it("a response whose uid is not the request's is dropped and counted, never taken as the answer", async ({
      client,
      pty,
    }) => {
      const before = client.counters().lateResponses;
      pty.sim.freeze(true);
      const waiting = rejection(client.getFwVersion());
      await sleep(50);
      const forged = encodeCtrlMsg(2, 223, 'resp_get_fw_version', { name: Buffer.from('XX') }, 0x7ffffff0);
      pty.sim.link.injectGarbage(pty.sim.link.framing.encode('ctrlResp', forged));
      assert.is((await waiting).kind, 'timeout');
      pty.sim.freeze(false);
      assert.is(client.counters().lateResponses, before + 1);
      assert.is((await client.getFwVersion()).name, 'FG');
    });

    it('ConnectAP answers at once; Event_StationConnectedToAP (305) names the network', async ({ client }) => {
      const connected = nextEvent(client, 'stationConnected', 3000);
      await client.connectAp(home);
      const [event] = await connected;
      assert.equal(
        [event.ssid, event.bssid, event.channel, event.security],
        ['HomeNet', '3c:84:6a:11:22:33', 6, 'wpa2_psk'],
      );
      assert.is((await client.getApConfig())?.ssid, 'HomeNet');
    });

    it('a refused passphrase: success at once, then 303 with the reason in its field and the SSID; the firmware retries by itself until the mode drops the station', async ({
      client,
    }) => {
      const events: Array<{ reason: number; ssid?: string | null }> = [];
      const listener = (e: { reason: number; ssid?: string | null }) => events.push(e);
      client.on('stationDisconnected', listener);
      const repeated = nextEvent(client, 'stationConnected', 3000);
      await client.connectAp({ ...home, password: 'wrong-passphrase' });
      // Connected, the firmware only repeats the network it is on; the new passphrase waits for
      // the next disconnect, which DisconnectAP brings.
      assert.is((await repeated)[0].ssid, 'HomeNet');
      assert.equal(events, []);
      await client.disconnectAp();
      const deadline = Date.now() + 3000;
      while (events.filter((e) => e.reason === DISCONNECT_REASON.handshakeTimeout).length < 2 && Date.now() < deadline)
        await sleep(20);
      // The first event is about leaving the network it was on (the same SSID), then the refusals.
      assert.ok(events.every((e) => e.ssid === 'HomeNet'));
      assert.ok(
        events.filter((e) => e.reason === DISCONNECT_REASON.handshakeTimeout).length >= 2,
        JSON.stringify(events),
      );
      await client.setMode('none');
      await sleep(((SIM_TIMING.retryMs + SIM_TIMING.connectMs + SIM_TIMING.authFailMs) * 2) / TIME_SCALE);
      const settled = events.length;
      await sleep(((SIM_TIMING.retryMs + SIM_TIMING.connectMs + SIM_TIMING.authFailMs) * 2) / TIME_SCALE);
      assert.is(events.length, settled);
      client.off('stationDisconnected', listener);
    });

    it('a missing network: 303 with reason 201 naming it', async ({ client }) => {
      const missing = nextEvent(client, 'stationDisconnected', 3000, (e) => e.ssid === 'NoSuchNet');
      await client.connectAp({ ssid: 'NoSuchNet', password: 'whatever-1' });
      assert.is((await missing)[0].reason, 201);
      await client.setMode('none');
    });

    it('a phone joining the soft AP is event 306, leaving is 304 with its reason', async ({ client, pty }) => {
      await client.startSoftAp({
        ssid: 'Nestbox-Setup',
        password: '',
        channel: 6,
        security: 'open',
        maxConnections: 4,
        ssidHidden: false,
        bandwidth: 'ht20',
      });
      const joined = nextEvent(client, 'softApStationConnected');
      const mac = pty.sim.joinSoftAp({ mac: '02:11:22:33:44:55' });
      assert.equal(await joined, [{ mac: '02:11:22:33:44:55', aid: 1 }]);
      const left = nextEvent(client, 'softApStationDisconnected');
      pty.sim.leaveSoftAp(mac!);
      assert.equal(await left, [{ mac: '02:11:22:33:44:55', reason: 8 }]);
      await client.stopSoftAp();
    });
  }

  it('an event id beyond the schema is skipped and counted; the link keeps working', async ({ client, pty }) => {
    const before = client.counters().unknownMessages;
    const unknown = Buffer.from('080310b502aa13020801', 'hex');
    pty.sim.link.injectGarbage(pty.sim.link.framing.encode('ctrlEvnt', unknown));
    await sleep(100);
    assert.is(client.counters().unknownMessages, before + 1);
    assert.ok(['none', 'station', 'softap', 'apsta'].includes(await client.getMode()));
  });

  return it;
}

generationSuite('documented').run();
generationSuite('current').run();
