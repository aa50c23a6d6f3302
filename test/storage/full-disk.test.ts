import { test } from 'uvu';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import { fill, freeBytes, mountTmpfs, removeFile, type Tmpfs } from '../helpers/tmpfs.js';
import { startSocialDaemon, type SocialHarness } from '../helpers/social.js';
import { form, png } from '../helpers/media-files.js';
import { BOX_USER, recordMessages, startMosquitto, type MessageRecorder } from '../helpers/mosquitto-broker.js';

const MB = 1024 * 1024;

async function waitFor<T>(
  what: string,
  probe: () => Promise<T | null | undefined | false>,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not seen in time`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function onTmpfs(
  sizeMb: number,
  env: Record<string, string>,
  run: (box: SocialHarness, disk: Tmpfs) => Promise<void>,
  schedule = { NESTBOX_BACKUP_SCHEDULE: 'off' },
): Promise<void> {
  const disk = mountTmpfs(sizeMb);
  let box: SocialHarness | null = null;
  try {
    box = await startSocialDaemon({ ...schedule, ...env }, { dataDir: disk.path });
    await run(box, disk);
  } finally {
    await box?.stop().catch(() => undefined);
    disk.unmount();
  }
}

const post = (box: SocialHarness, token: string, text: string) =>
  box.api(token, 'POST', '/api/v1/statuses', { status: text });
const healthz = async (box: SocialHarness) => (await box.api(null, 'GET', '/healthz')).body;

/** The storage status of the MQTT state messages, from message `from` on. */
const storageOnMqtt = (recorder: MessageRecorder, status: string, from = 0) =>
  recorder.wait((message) => message.topic.endsWith('/state') && JSON.parse(message.text).storage?.status === status, {
    from,
    timeoutMs: 15_000,
  });

test('a full disk: writes answer 507 with an error, reads go on, /healthz, the device state and MQTT say so, and all recovers without a restart', async () => {
  const broker = await startMosquitto();
  const mqtt = await broker.client();
  try {
    const states = await recordMessages(mqtt, 'nestbox/+/state');
    await fullDisk(states, {
      NESTBOX_MQTT_URL: broker.url,
      NESTBOX_MQTT_USERNAME: BOX_USER.username,
      NESTBOX_MQTT_PASSWORD: BOX_USER.password,
    });
  } finally {
    await mqtt.endAsync();
    await broker.stop();
  }
});

async function fullDisk(states: MessageRecorder, mqttEnv: Record<string, string>): Promise<void> {
  await onTmpfs(12, { NESTBOX_STORAGE_MIN_FREE_MB: '1', ...mqttEnv }, async (box, disk) => {
    const alice = await box.account('alice');
    const owner = await box.account('owner', { owner: true, scopes: 'read write admin:read' });
    const first = await post(box, alice.token, 'written while there was room');
    assert.is(first.status, 200);
    assert.is((await healthz(box)).components.storage.status, 'ok');

    const filler = fill(disk.path, 'filler');
    // The WAL reuses the room it already has: keep posting until SQLite needs more and cannot have it.
    const words = 'no room for this post '.repeat(20);
    let refused: Awaited<ReturnType<typeof post>> | null = null;
    for (let i = 0; i < 500 && !refused; i++) {
      const answer = await post(box, alice.token, `${i} ${words}`);
      if (answer.status !== 200) refused = answer;
    }
    assert.ok(refused, 'a write was refused once the disk was full');
    assert.is(refused.status, 507);
    assert.match(refused.body.error, /storage is full/);

    // An upload has nowhere to go either: 507 too, not a 400 from the body parser.
    const upload = await fetch(`${box.url}/api/v2/media`, {
      method: 'POST',
      headers: { authorization: `Bearer ${alice.token}` },
      body: form({ file: { data: await png(400, 300), type: 'image/png', name: 'a.png' } }),
    });
    assert.is(upload.status, 507, await upload.clone().text());
    assert.match(((await upload.json()) as { error: string }).error, /storage is full/);

    // Reads keep working.
    const read = await box.api(alice.token, 'GET', `/api/v1/statuses/${first.body.id}`);
    assert.is(read.status, 200);
    assert.is(read.body.id, first.body.id);
    assert.is((await box.api(alice.token, 'GET', '/api/v1/timelines/home')).status, 200);

    const health = await healthz(box);
    assert.is(health.status, 'degraded');
    assert.is(health.components.storage.status, 'degraded');
    assert.match(health.components.storage.detail, /data disk is full/);
    assert.type(health.components.storage.free_bytes, 'number');
    assert.ok(health.components.storage.free_bytes < MB);
    const state = await box.api(owner.token, 'GET', '/api/nestbox/v1/state');
    assert.is(state.status, 200);
    assert.is(state.body.storage.status, 'full');
    assert.match(state.body.storage.detail, /full/);
    await storageOnMqtt(states, 'full');
    const refusedAt = states.mark();
    assert.ok(box.daemon.logs.some((line) => line.msg === 'write refused: storage full'));
    assert.not.ok(
      box.daemon.logs.some((line) => line.msg === 'request failed'),
      'no 500 logged for a full disk',
    );

    removeFile(filler);
    await waitFor('storage ok again', async () => (await healthz(box)).components.storage.status === 'ok');
    const after = await post(box, alice.token, 'written after space came back');
    assert.is(after.status, 200);
    assert.is((await box.api(owner.token, 'GET', '/api/nestbox/v1/state')).body.storage.status, 'ok');
    assert.is((await healthz(box)).status, 'ok');
    await storageOnMqtt(states, 'ok', refusedAt);
  });
}

test('below the free-space threshold /healthz warns early (writes still succeed) and the warning clears when space returns', async () => {
  await onTmpfs(16, { NESTBOX_STORAGE_MIN_FREE_MB: '4' }, async (box, disk) => {
    const alice = await box.account('alice');
    const owner = await box.account('owner', { owner: true, scopes: 'read write admin:read' });
    assert.is((await healthz(box)).status, 'ok');
    const filler = fill(disk.path, 'filler', 2 * MB);
    assert.ok(freeBytes(disk.path) < 4 * MB);

    const health = await healthz(box);
    assert.is(health.status, 'degraded');
    assert.is(health.components.storage.status, 'degraded');
    assert.match(health.components.storage.detail, /free on the data disk \(warning below 4\.0 MB\)/);
    assert.is(health.components.storage.min_free_bytes, 4 * MB);
    assert.ok(health.components.storage.free_bytes < 4 * MB);
    assert.is((await box.api(owner.token, 'GET', '/api/nestbox/v1/state')).body.storage.status, 'low');
    // A warning, not a refusal: there is still room for posts.
    assert.is((await post(box, alice.token, 'still room for this')).status, 200);

    removeFile(filler);
    const healed = await healthz(box);
    assert.is(healed.status, 'ok');
    assert.is(healed.components.storage.status, 'ok');
    assert.is((await box.api(owner.token, 'GET', '/api/nestbox/v1/state')).body.storage.status, 'ok');
  });
});

test('a backup that would take the space the database needs is skipped, with a warning, and leaves no partial file', async () => {
  await onTmpfs(
    12,
    { NESTBOX_STORAGE_MIN_FREE_MB: '1' },
    async (box, disk) => {
      fill(disk.path, 'filler', MB + 64 * 1024);
      const skipped = await box.daemon.waitForLog(
        (line) => line.msg === 'backup skipped: not enough free space',
        10_000,
      );
      assert.ok(Number(skipped.free_bytes) < Number(skipped.needed_bytes));
      // Backups run every second: the ones after the first skip are skipped too.
      const skips = () =>
        box.daemon.logs.slice(box.daemon.logs.indexOf(skipped)).filter((line) => line.msg === skipped.msg).length;
      await box.daemon.waitForLog(() => skips() >= 2, 10_000);
      const later = box.daemon.logs.slice(box.daemon.logs.indexOf(skipped));
      assert.not.ok(later.some((line) => line.msg === 'database backed up'));
      assert.ok(later.filter((line) => line.msg === 'backup skipped: not enough free space').length >= 2);
      const backups = join(disk.path, 'backups');
      assert.equal(
        (existsSync(backups) ? readdirSync(backups) : []).filter((name) => name.endsWith('.partial')),
        [],
      );
    },
    { NESTBOX_BACKUP_SCHEDULE: '* * * * * *' },
  );
});

test.run();
