/**
 * `npm run bench -- mqtt [--changes N] [--idle-seconds S]`: the real daemon (child process) with
 * the simulated coprocessor on a pseudo-terminal in this process and a real mosquitto on loopback.
 * Figures:
 * - delay from a DeviceState change originating at the device to the state message at a
 *   subscriber (p50, p99; target p99 ≤ 50 ms): the access point drops the station (the simulator
 *   sends Event_StationDisconnectFromAP), the daemon goes `reconnecting`; measured from the
 *   simulator's event to the retained state saying `reconnecting`; the daemon reconnects before the
 *   next round;
 * - messages per minute at idle (target ≤ 2) while the device's heartbeats flow at a fast time
 *   scale (every 250 ms) and the daemon runs its default refresh schedule.
 */
import { parseArgs } from 'node:util';
import { DISCONNECT_REASON } from '../../daemon/coproc/sim/index.js';
import { startDaemon } from '../../test/helpers/daemon.js';
import { BOX_USER, recordMessages, startMosquitto } from '../../test/helpers/mosquitto-broker.js';
import { startSimOnPty } from '../../test/helpers/pty.js';
import { SIM_HOME } from '../../test/helpers/sim-connectivity.js';
import { percentile, report, round } from './stats.js';
import type { Bench } from './index.js';

const STATION_MAC = '02:be:0c:00:00:01';
const DEVICE_ID = STATION_MAC.replace(/:/g, '');
const TIME_SCALE = 40;
/** The parts of the retained /state payload this bench waits on. */
type StatePayload = { connectivity: string; softap: { active: boolean } };

async function run(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: { changes: { type: 'string', default: '100' }, 'idle-seconds': { type: 'string', default: '60' } },
  });
  const changes = Number(values.changes);
  const idleSeconds = Number(values['idle-seconds']);
  if (!(changes > 0) || !(idleSeconds > 0)) throw new Error('--changes and --idle-seconds take positive numbers');

  const broker = await startMosquitto();
  const pty = await startSimOnPty({ timeScale: TIME_SCALE, framing: 'serial', stationMac: STATION_MAC });
  const subscriber = await broker.client();
  const recorder = await recordMessages(subscriber, `nestbox/${DEVICE_ID}/#`);
  const daemon = await startDaemon({
    env: {
      NESTBOX_COPROC: `serial:${pty.path}`,
      NESTBOX_COPROC_TIME_SCALE: String(TIME_SCALE),
      NESTBOX_MQTT_URL: broker.url,
      NESTBOX_MQTT_USERNAME: BOX_USER.username,
      NESTBOX_MQTT_PASSWORD: BOX_USER.password,
      NESTBOX_RECONNECT_DELAY_MS: '50',
      NESTBOX_STABLE_S: '0',
      NESTBOX_LOG_LEVEL: 'info',
    },
  });
  const stateSays = (connectivity: string) => (m: { topic: string; text: string }) =>
    m.topic.endsWith('/state') && (JSON.parse(m.text) as StatePayload).connectivity === connectivity;
  try {
    // The home network is saved through the setup API (the box starts in setup mode).
    await recorder.wait(stateSays('setup_ap'), { timeoutMs: 15_000 });
    await daemon.json('/setup/api/connect', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ ssid: SIM_HOME.ssid, password: SIM_HOME.passphrase }),
    });
    // Out of setup mode (the setup AP closes once the connection is stable).
    await recorder.wait((m) => stateSays('connected')(m) && !(JSON.parse(m.text) as StatePayload).softap.active, {
      timeoutMs: 15_000,
    });

    const delays: number[] = [];
    for (let n = 1; n <= changes; n += 1) {
      const from = recorder.mark();
      const sent = new Promise<number>((resolve) => {
        const onEvent = (name: string) => {
          if (name === 'stationDisconnected') {
            pty.sim.device.off('event', onEvent);
            resolve(performance.now());
          }
        };
        pty.sim.device.on('event', onEvent);
      });
      if (!pty.sim.kickStation(DISCONNECT_REASON.assocLeave)) throw new Error('the station was not connected');
      const message = await recorder.wait(stateSays('reconnecting'), { from, timeoutMs: 10_000 });
      delays.push(message.at - (await sent));
      await recorder.wait(stateSays('connected'), { from: recorder.messages.indexOf(message), timeoutMs: 10_000 });
    }

    // Idle: connected, heartbeats every 250 ms, nothing else happening; every message under the base counts.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const idleFrom = recorder.mark();
    const beatsBefore = pty.sim.snapshot().heartbeat?.next ?? 0;
    await new Promise((resolve) => setTimeout(resolve, idleSeconds * 1000));
    const idleMessages = recorder.messages.length - idleFrom;
    const idleTopics: Record<string, number> = {};
    for (const m of recorder.messages.slice(idleFrom))
      idleTopics[m.topic.slice(`nestbox/${DEVICE_ID}/`.length)] =
        (idleTopics[m.topic.slice(`nestbox/${DEVICE_ID}/`.length)] ?? 0) + 1;
    const heartbeats = (pty.sim.snapshot().heartbeat?.next ?? 0) - beatsBefore;

    report('mqtt', [
      {
        metric: 'change_to_subscriber_p50_ms',
        value: round(percentile(delays, 50)),
        unit: 'ms',
        changes,
        path: 'simulator → PTY → daemon → mosquitto',
      },
      {
        metric: 'change_to_subscriber_p99_ms',
        value: round(percentile(delays, 99)),
        unit: 'ms',
        target: '≤ 50',
        changes,
      },
      {
        metric: 'idle_messages_per_min',
        value: round(idleMessages / (idleSeconds / 60)),
        unit: 'msg/min',
        target: '≤ 2',
        idle_s: idleSeconds,
        heartbeats,
        topics: idleTopics,
      },
    ]);
  } finally {
    await daemon.stop();
    await subscriber.endAsync();
    await pty.close();
    await broker.stop();
  }
}

export const bench: Bench = {
  description:
    'device change (via the simulator) → MQTT subscriber delay (p50/p99) and messages per minute at idle, real daemon',
  run,
};
