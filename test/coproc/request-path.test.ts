/**
 * The request path around a device restart: a request written well before the boot announcement
 * fails at once, one written just before it may have crossed it and is still awaited, but only
 * briefly, so a request the booting device never heard does not hold the queue for its timeout.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { EventEmitter } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { CoprocError, emptyLinkCounters } from '../../daemon/coproc/api.js';
import { decodeCtrlMsg, encodeCtrlMsg } from '../../daemon/coproc/codec.js';
import { createFraming } from '../../daemon/coproc/framing/index.js';
import { TLV_PREFIX_LEN } from '../../daemon/coproc/framing/tlv.js';
import { MSG_TYPE, OPERATION, RESP_OFFSET } from '../../daemon/coproc/operations.js';
import { RequestPath } from '../../daemon/coproc/request-path.js';
import type { Transport, TransportEvents } from '../../daemon/coproc/transport/types.js';
import { silentLogger } from '../../daemon/log/logger.js';

/** A link whose far end is the test: it keeps what the host wrote. */
class RecordingTransport extends EventEmitter<TransportEvents> implements Transport {
  readonly description = 'test';
  readonly isOpen = true;
  readonly written: Buffer[] = [];
  start(): void {}
  write(bytes: Buffer): boolean {
    this.written.push(bytes);
    return true;
  }
  async close(): Promise<void> {}
}

function openPath(): { path: RequestPath; transport: RecordingTransport } {
  const transport = new RecordingTransport();
  const path = new RequestPath({
    transport,
    framing: createFraming('esps', 'host', { frame() {}, fault() {} }),
    log: silentLogger,
    stats: emptyLinkCounters(),
    timeouts: {},
    queueLimit: 8,
    answered() {},
    unknown() {},
  });
  return { path, transport };
}

/** The uid the host put in the request it wrote. */
function writtenUid(bytes: Buffer): number {
  return decodeCtrlMsg(bytes.subarray(TLV_PREFIX_LEN)).uid;
}

function failure(promise: Promise<unknown>): Promise<{ error: CoprocError; afterMs: number }> {
  const started = performance.now();
  return promise.then(
    () => assert.unreachable('the request should have failed') as never,
    (error: CoprocError) => ({ error, afterMs: performance.now() - started }),
  );
}

test('a request written long before the announcement fails at once as restarted', async () => {
  const { path } = openPath();
  const pending = failure(path.call('getMac', { mode: 1 }, { timeoutMs: 5000 }));
  await sleep(80);
  path.deviceRestarted();
  const { error, afterMs } = await pending;
  assert.is(error.kind, 'link_down');
  assert.match(error.message, /restarted before answering/);
  assert.ok(afterMs < 1000, `failed after ${afterMs} ms`);
});

test('a request that crossed the announcement and goes unanswered fails within a second, not its timeout', async () => {
  const { path } = openPath();
  const pending = failure(path.call('getMac', { mode: 1 }, { timeoutMs: 5000 }));
  path.deviceRestarted();
  const { error, afterMs } = await pending;
  assert.is(error.kind, 'link_down');
  assert.ok(afterMs >= 900 && afterMs < 3000, `failed after ${afterMs} ms`);
});

test('a request that crossed the announcement is still answered when the device answers it', async () => {
  const { path, transport } = openPath();
  const answer = path.call('getMac', { mode: 1 }, { timeoutMs: 5000 });
  path.deviceRestarted();
  await sleep(100);
  const spec = OPERATION.getMac;
  const response = encodeCtrlMsg(
    MSG_TYPE.response,
    spec.id + RESP_OFFSET,
    spec.responseField,
    { mac: Buffer.from('24:0a:c4:00:00:01'), resp: 0 },
    writtenUid(transport.written[0]),
  );
  path.onResponse(decodeCtrlMsg(response));
  const body = await answer;
  assert.is(String(body.mac), '24:0a:c4:00:00:01');
});

test.run();
