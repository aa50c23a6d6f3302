/**
 * Home Assistant's "Visit" link (discovery's `dev.cu` and `o.url`) follows the box's address: the
 * switch to its public name reaches the bridge through DeviceState `reachability`, the discovery
 * config is sent again with `https://<name>/dashboard`, and turning it off brings the home address
 * back. The bridge in-process against a real mosquitto, as in bridge.test.ts.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { initialView, type ReachabilityView } from '../../daemon/reachability/model.js';
import { startMosquitto, recordMessages, type MosquittoBroker } from '../helpers/mosquitto-broker.js';
import { closeDatabases, startBridge, type HarnessBridge } from './bridge-harness.js';

const DISCOVERY = 'homeassistant/device/020000000031/config';
const STATE = 'nestbox/020000000031/state';
const HOME = 'http://nestbox-test.local:8080/dashboard';
const PUBLIC = 'https://social.example.org/dashboard';

let broker: MosquittoBroker;
let box: HarnessBridge;

test.before(async () => {
  broker = await startMosquitto();
  box = await startBridge(broker, { mac: '02:00:00:00:00:31' });
  await box.waitForHealth((health) => health.status === 'ok');
});
test.after(async () => {
  await box?.bridge.stop();
  await broker?.stop();
  await closeDatabases();
});

const switched = (publicUrl: string | null): ReachabilityView => ({
  ...initialView(),
  name: 'social.example.org',
  public_url: publicUrl,
});
const links = (text: string) => {
  const config = JSON.parse(text) as { dev: { cu?: string }; o: { url?: string } };
  return [config.dev.cu, config.o.url];
};

test('the switch to the public name sends the discovery config again, linking https://<name>/dashboard', async () => {
  const ha = await broker.client();
  const recorder = await recordMessages(ha, [DISCOVERY, STATE]);
  const first = await recorder.wait((m) => m.topic === DISCOVERY);
  assert.equal(links(first.text), [HOME, HOME]);
  // The steps before the switch change the state, not the link: no new config for them.
  const before = recorder.mark();
  box.device.update({ reachability: switched(null) });
  await recorder.wait((m) => m.topic === STATE && JSON.parse(m.text).reachability.name !== null, { from: before });
  assert.not.ok(recorder.messages.slice(before).some((m) => m.topic === DISCOVERY));
  box.device.update({ reachability: switched('https://social.example.org') });
  const again = await recorder.wait((m) => m.topic === DISCOVERY, { from: before });
  assert.equal(links(again.text), [PUBLIC, PUBLIC]);
  await ha.endAsync();
});

test('a late Home Assistant gets the public link retained; turning reachability off brings the home link back', async () => {
  const late = await broker.client();
  const recorder = await recordMessages(late, DISCOVERY);
  const retained = await recorder.wait(() => true);
  assert.ok(retained.retain);
  assert.equal(links(retained.text), [PUBLIC, PUBLIC]);
  box.device.update({ reachability: initialView() });
  const home = await recorder.wait((m) => links(m.text)[0] === HOME, { from: 1 });
  assert.equal(links(home.text), [HOME, HOME]);
  await late.endAsync();
});

test.run();
