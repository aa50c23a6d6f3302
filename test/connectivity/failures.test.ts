import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  classifyConnectRefusal,
  describeDisconnectReason,
  describeFailure,
  failureOfDisconnect,
} from '../../daemon/connectivity/failures.js';

test('a refused connect: not in range is not_found, in range and secured is auth, open is failed', () => {
  assert.is(classifyConnectRefusal(null, null), 'not_found');
  assert.is(classifyConnectRefusal({ secured: true }, null), 'auth');
  assert.is(classifyConnectRefusal({ secured: false }, null), 'failed');
});

test('a fresh IDF disconnect reason (newer firmware) decides over the scan', () => {
  assert.is(classifyConnectRefusal({ secured: true }, 201), 'not_found');
  assert.is(classifyConnectRefusal(null, 202), 'auth');
  assert.is(classifyConnectRefusal(null, 15), 'auth');
  assert.is(classifyConnectRefusal({ secured: true }, 9999), 'auth', 'an unknown reason says nothing');
  assert.is(failureOfDisconnect(200), 'not_found');
  assert.is(failureOfDisconnect(77), 'failed');
  assert.match(describeDisconnectReason(200), /beacon timeout/);
  assert.is(describeDisconnectReason(77), 'reason 77');
});

test('a refused password is recognised from 15, 202, 204 and the other key-handshake reasons; a missing network from 201 and 212', () => {
  for (const reason of [2, 14, 15, 16, 17, 23, 202, 204])
    assert.is(failureOfDisconnect(reason), 'auth', String(reason));
  for (const reason of [200, 201, 212]) assert.is(failureOfDisconnect(reason), 'not_found', String(reason));
  for (const reason of [8, 203, 205, 210, 211]) assert.is(failureOfDisconnect(reason), 'failed', String(reason));
  assert.match(describeDisconnectReason(14), /wrong password/);
});

test('failures are said in words, naming the network where it helps', () => {
  assert.match(describeFailure('auth', 'Home'), /^Home: The network refused the password/);
  assert.match(describeFailure('not_found', 'Home'), /not in range/);
  assert.not.match(describeFailure('timeout', 'Home'), /Home/);
  assert.match(describeFailure('no_network'), /No saved network/);
});

test.run();
