/** Transports other than plain mqtt://: ws://, and mqtts:// with a CA file and a client certificate. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { BrokerSettings } from '../../daemon/mqtt/connection.js';
import {
  BOX_USER,
  HA_USER,
  recordMessages,
  startMosquitto,
  type MosquittoBroker,
} from '../helpers/mosquitto-broker.js';
import { closeDatabases, startBridge, type HarnessBridge } from './bridge-harness.js';

let broker: MosquittoBroker;
const running: HarnessBridge[] = [];

test.before(async () => {
  broker = await startMosquitto({ tls: true, websockets: true });
});
test.after.each(async () => {
  for (const b of running.splice(0)) await b.bridge.stop();
});
test.after(async () => {
  await broker.stop();
  await closeDatabases();
});

function tlsSettings(files: Partial<Pick<BrokerSettings, 'caFile' | 'certFile' | 'keyFile'>>): BrokerSettings {
  return {
    url: broker.tlsUrl!,
    username: BOX_USER.username,
    password: BOX_USER.password,
    protocolVersion: 4,
    clientId: null,
    caFile: null,
    certFile: null,
    keyFile: null,
    ...files,
  };
}

test('ws:// connects and publishes like mqtt://', async () => {
  const box = await startBridge(broker, {
    mac: '02:00:00:00:0c:04',
    broker: { ...tlsSettings({}), url: broker.wsUrl! },
  });
  running.push(box);
  await box.waitForHealth((health) => health.status === 'ok');
  const ha = await broker.client(HA_USER);
  const recorder = await recordMessages(ha, 'nestbox/020000000c04/state');
  assert.ok(JSON.parse((await recorder.wait(() => true)).text).daemon);
});

test('mqtts:// with the CA file and a client certificate connects and publishes', async () => {
  const box = await startBridge(broker, {
    mac: '02:00:00:00:0c:01',
    broker: tlsSettings({
      caFile: broker.pki!.caFile,
      certFile: broker.pki!.clientCertFile,
      keyFile: broker.pki!.clientKeyFile,
    }),
  });
  running.push(box);
  await box.waitForHealth((health) => health.status === 'ok');
  const ha = await broker.client(HA_USER);
  const recorder = await recordMessages(ha, 'nestbox/020000000c01/availability');
  assert.is((await recorder.wait(() => true)).text, 'online');
});

test('mqtts:// without trusting the broker CA is degraded with a TLS reason', async () => {
  const box = await startBridge(broker, {
    mac: '02:00:00:00:0c:02',
    broker: tlsSettings({ certFile: broker.pki!.clientCertFile, keyFile: broker.pki!.clientKeyFile }),
  });
  running.push(box);
  const health = await box.waitForHealth((h) => h.status === 'degraded');
  assert.match(health.detail!, /^TLS handshake with the broker failed \(self-signed certificate/);
});

test('a CA file that cannot be read is a clear degraded reason, not a crash', async () => {
  const box = await startBridge(broker, {
    mac: '02:00:00:00:0c:03',
    broker: tlsSettings({ caFile: '/nonexistent/ca.pem' }),
  });
  running.push(box);
  const health = await box.waitForHealth((h) => h.status === 'degraded');
  assert.is(health.detail, 'cannot read mqtt_ca_file /nonexistent/ca.pem (ENOENT)');
});

test.run();
