/**
 * `npm run bench -- mqtt [--changes N] [--idle-seconds S]`: the MQTT bridge against a real
 * mosquitto on loopback. Figures: delay from a DeviceState change to the state message at a
 * subscriber (p50, p99; target p99 ≤ 50 ms), and messages per minute at idle while heartbeats
 * tick (target ≤ 2), with the default refresh schedule.
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { DeviceState, initialDeviceState } from '../../daemon/device/state.js';
import { silentLogger } from '../../daemon/log/logger.js';
import { MqttBridge } from '../../daemon/mqtt/bridge.js';
import { settingsMemory } from '../../daemon/mqtt/memory.js';
import { openDatabase } from '../../daemon/store/db.js';
import { migrate } from '../../daemon/store/migrate.js';
import { loadConfig } from '../../daemon/config.js';
import { BOX_USER, recordMessages, startMosquitto } from '../../test/helpers/mosquitto-broker.js';
import { tempDir } from '../../test/helpers/paths.js';
import { percentile, report, round } from './stats.js';
import type { Bench } from './index.js';

const DEVICE_ID = '02be0c000001';

async function run(argv: string[]): Promise<void> {
  const { values } = parseArgs({ args: argv, options: { changes: { type: 'string', default: '300' }, 'idle-seconds': { type: 'string', default: '60' } } });
  const changes = Number(values.changes);
  const idleSeconds = Number(values['idle-seconds']);
  if (!(changes > 0) || !(idleSeconds > 0)) throw new Error('--changes and --idle-seconds take positive numbers');

  const broker = await startMosquitto();
  const dir = tempDir('nestbox-bench-mqtt-');
  const db = openDatabase({ filename: join(dir.path, 'nestbox.sqlite3') });
  await migrate(db);
  const device = new DeviceState(initialDeviceState('bench', 'sim'));
  device.update({ wifi: { mac: DEVICE_ID.match(/../g)!.join(':') }, connectivity: 'connected', coprocessor: { link: 'up' } });
  let connected!: () => void;
  const ready = new Promise<void>((resolve) => { connected = resolve; });
  const bridge = new MqttBridge({
    device, commands: null,
    broker: { url: broker.url, username: BOX_USER.username, password: BOX_USER.password, protocolVersion: 4, clientId: null, caFile: null, certFile: null, keyFile: null },
    prefix: 'nestbox', discoveryPrefix: 'homeassistant', memory: settingsMemory(db), log: silentLogger, version: 'bench',
    refreshSchedule: loadConfig({ env: {} }).mqttRefreshSchedule,
    reportHealth: (health) => { if (health.status === 'ok') connected(); },
  });
  try {
    await bridge.start();
    await ready;
    const subscriber = await broker.client();
    const recorder = await recordMessages(subscriber, `nestbox/${DEVICE_ID}/#`);
    await recorder.wait((m) => m.topic.endsWith('/state'));

    // Change → subscriber: each change waits for its own state message (no overlap).
    const delays: number[] = [];
    for (let n = 1; n <= changes; n += 1) {
      const from = recorder.mark();
      const started = performance.now();
      device.update({ instance: { unread_notifications: n } });
      const message = await recorder.wait((m) => m.topic.endsWith('/state') && m.text.includes(`"unread_notifications":${n}`), { from });
      delays.push(message.at - started);
    }

    // Idle: heartbeats every 100 ms (the device's 10 s period at time scale 100), uptime and
    // signal wobbling, nothing else changing; count every message under the box's base.
    const idleFrom = recorder.mark();
    let beat = 0;
    const heartbeat = setInterval(() => {
      beat += 1;
      device.update({ coprocessor: { heartbeat_number: beat, last_heartbeat: new Date().toISOString() }, wifi: { rssi: -50 - (beat % 5) } });
    }, 100);
    await new Promise((resolve) => setTimeout(resolve, idleSeconds * 1000));
    clearInterval(heartbeat);
    const idleMessages = recorder.messages.length - idleFrom;

    report('mqtt', [
      { metric: 'change_to_subscriber_p50_ms', value: round(percentile(delays, 50)), unit: 'ms', changes },
      { metric: 'change_to_subscriber_p99_ms', value: round(percentile(delays, 99)), unit: 'ms', target: '≤ 50', changes },
      { metric: 'idle_messages_per_min', value: round(idleMessages / (idleSeconds / 60)), unit: 'msg/min', target: '≤ 2', idle_s: idleSeconds, heartbeats: beat },
    ]);
  } finally {
    await bridge.stop();
    await db.destroy();
    await broker.stop();
    dir.remove();
  }
}

export const bench: Bench = {
  description: 'DeviceState change → MQTT subscriber delay (p50/p99) and messages per minute at idle',
  run,
};
