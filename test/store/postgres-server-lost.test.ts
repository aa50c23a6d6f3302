/**
 * A PostgreSQL server lost after the start, on a cluster of this suite's own (stopped and started
 * again as an administrator would): /healthz says `degraded` within 10 s, writes answer 503 with
 * Retry-After and an error body (never a 500, never a hang), the same process is back once the
 * server is, and every write it acknowledged is there. Prints the figures.
 *
 * Then the same under a social load: clients posting all along while the server goes and comes
 * back get 2xx or 503 and nothing else, every post answered 2xx is there afterwards, and a
 * WebSocket stream opened before the loss carries a post made after the server's return.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import pg from 'pg';
import WebSocket from 'ws';
import { startDaemon, type RunningDaemon } from '../helpers/daemon.js';
import { startSocialDaemon, type SocialHarness } from '../helpers/social.js';
import {
  clusterFolder,
  clusterUrl,
  removeCluster,
  startClusterIn,
  startServerIn,
  stopServerIn,
} from '../helpers/postgres-cluster.js';

/** A request that does not answer in this time has hung: the test fails. */
const HANG_MS = 30_000;

interface Outcome {
  status: number;
  retryAfter: string | null;
  body: unknown;
}

/** A write the daemon sends to the database (registering an app), or one its token lookup reaches first. */
async function write(daemon: RunningDaemon, path: string, token?: string): Promise<Outcome> {
  const response = await daemon.fetch(path, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ client_name: 'outage', redirect_uris: 'urn:ietf:wg:oauth:2.0:oob', ssid: 'home' }),
    signal: AbortSignal.timeout(HANG_MS),
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // kept as text: the assertions below say what was expected
  }
  return { status: response.status, retryAfter: response.headers.get('Retry-After'), body };
}

async function databaseHealth(daemon: RunningDaemon): Promise<string> {
  const health = await daemon.json<{ components: { database: { status: string } } }>('/healthz', {
    signal: AbortSignal.timeout(HANG_MS),
  });
  return health.body.components.database.status;
}

/** Looks every 100 ms until `holds`; returns the ms it took, failing after `ms`. */
async function waitFor(holds: () => Promise<boolean>, what: string, ms: number): Promise<number> {
  const started = Date.now();
  while (!(await holds())) {
    if (Date.now() - started > ms) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return Date.now() - started;
}

test('a server stopped and started again: degraded within 10 s, 503 with Retry-After, back in the same process', async () => {
  const folder = clusterFolder();
  await startClusterIn(folder);
  const url = clusterUrl(folder);
  const daemon = await startDaemon({ env: { NESTBOX_DATABASE_URL: url } });
  try {
    assert.is(await databaseHealth(daemon), 'ok');
    const tokenChecked = await write(daemon, '/api/nestbox/v1/networks', 'not-a-token');
    assert.is(tokenChecked.status, 401, 'the token is looked up in the database');

    await stopServerIn(folder);
    const toDegraded = await waitFor(async () => (await databaseHealth(daemon)) === 'degraded', 'degraded', 10_000);
    const refused = [
      await write(daemon, '/api/v1/apps'),
      await write(daemon, '/api/v1/apps'),
      await write(daemon, '/api/nestbox/v1/networks', 'not-a-token'),
    ];
    const instance = await daemon.fetch('/api/v2/instance', { signal: AbortSignal.timeout(HANG_MS) });

    await startServerIn(folder);
    const healthBack = await waitFor(async () => (await databaseHealth(daemon)) === 'ok', 'healthy again', 30_000);
    const started = Date.now();
    const back = await daemon.waitForLog((line) => line.msg === 'the database server answers again', 30_000);
    const watchBack = Date.now() - started + healthBack;
    const answered = await write(daemon, '/api/nestbox/v1/networks', 'not-a-token');

    console.log(
      `server lost: /healthz degraded ${toDegraded} ms after the server stopped; writes meanwhile: ` +
        `${refused.map((outcome) => outcome.status).join(', ')}; /api/v2/instance: ${instance.status}; ` +
        `after the server started again: /healthz ok in ${healthBack} ms, the watch reconnected within ${watchBack} ms`,
    );
    for (const outcome of refused) {
      assert.is(outcome.status, 503);
      assert.is(outcome.retryAfter, '10');
      assert.type((outcome.body as { error?: unknown }).error, 'string');
    }
    assert.ok(instance.status === 200 || instance.status === 503, `a read answers 200 or 503, not ${instance.status}`);
    assert.ok(back, 'the watch is back');
    assert.is(answered.status, 401, 'the database answers the same process again');
    assert.is(daemon.child.exitCode, null, 'the same process');
    assert.equal(
      daemon.logs.filter((line) => line.level === 'error').map((line) => line.msg),
      [],
      'no request failed as a fault of the code',
    );

    // What the daemon wrote before the loss (its base URL at the first start) is still there.
    const check = new pg.Client({ connectionString: url });
    await check.connect();
    try {
      const { rows } = await check.query<{ n: string }>('SELECT count(*) AS n FROM settings');
      assert.ok(Number(rows[0].n) > 0, 'settings written before the loss are there');
    } finally {
      await check.end();
    }
  } finally {
    await daemon.stop();
    await removeCluster(folder);
  }
});

interface Posted {
  acked: Array<{ id: string; text: string }>;
  refused: number[];
}

/** Posts one status after another until `stop()`, noting each answer. */
async function postUntil(box: SocialHarness, token: string, worker: number, into: Posted, stop: () => boolean) {
  for (let n = 0; !stop(); n++) {
    const text = `outage-${worker}-${n}`;
    const answer = await box.api(token, 'POST', '/api/v1/statuses', { status: text });
    if (answer.status >= 200 && answer.status < 300) into.acked.push({ id: answer.body.id, text });
    else {
      into.refused.push(answer.status);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** The next `update` on `ws` of a status whose text holds `text`. */
function updateWith(ws: WebSocket, text: string, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`"${text}" not streamed in time`)), timeoutMs);
    ws.on('message', (data) => {
      const message = JSON.parse((data as Buffer).toString()) as { event: string; payload: string };
      if (message.event !== 'update' || !(JSON.parse(message.payload) as { content: string }).content.includes(text))
        return;
      clearTimeout(timer);
      resolve();
    });
  });
}

test('posting through a lost server: 2xx or 503, nothing acknowledged lost, the stream goes on', async () => {
  const folder = clusterFolder();
  await startClusterIn(folder);
  const box = await startSocialDaemon({ NESTBOX_DATABASE_URL: clusterUrl(folder), NESTBOX_BACKUP_SCHEDULE: 'off' });
  let ws: WebSocket | null = null;
  try {
    const alice = await box.account('alice');
    const stream = new WebSocket(
      `ws://127.0.0.1:${box.daemon.streamingPort}/api/v1/streaming?stream=public:local&access_token=${alice.token}`,
    );
    ws = stream;
    await new Promise((resolve, reject) => stream.once('open', resolve).once('error', reject));
    const posted: Posted = { acked: [], refused: [] };
    let stopping = false;
    const load = [0, 1, 2].map((worker) => postUntil(box, alice.token, worker, posted, () => stopping));
    await waitFor(async () => posted.acked.length >= 10, 'posts before the loss', 30_000);
    await stopServerIn(folder);
    await waitFor(async () => posted.refused.length >= 3, 'posts refused during the loss', 15_000);
    const ackedBefore = posted.acked.length;
    await startServerIn(folder);
    await waitFor(async () => posted.acked.length >= ackedBefore + 10, 'posts after the return', 30_000);
    stopping = true;
    await Promise.all(load);

    console.log(
      `posting through the loss: ${ackedBefore} acknowledged before and during it, ${posted.refused.length} ` +
        `refused (${[...new Set(posted.refused)].join(', ')}), ${posted.acked.length - ackedBefore} acknowledged after`,
    );
    assert.equal([...new Set(posted.refused)], [503], 'a write meeting the lost server answers 503');
    for (const { id, text } of posted.acked) {
      const answer = await box.api(alice.token, 'GET', `/api/v1/statuses/${id}`);
      assert.is(answer.status, 200, `acknowledged post ${id}`);
      assert.match(answer.body.content, text);
    }
    const streamed = updateWith(stream, 'after the return', 10_000);
    assert.is((await box.api(alice.token, 'POST', '/api/v1/statuses', { status: 'after the return' })).status, 200);
    await streamed;
    assert.is(stream.readyState, WebSocket.OPEN, 'the stream opened before the loss is still open');
  } finally {
    ws?.close();
    await box.stop();
    await removeCluster(folder);
  }
});

test.run();
