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

test('failures are said in words, naming the network where it helps', () => {
  assert.match(describeFailure('auth', 'Home'), /^Home: The network refused the password/);
  assert.match(describeFailure('not_found', 'Home'), /not in range/);
  assert.not.match(describeFailure('timeout', 'Home'), /Home/);
  assert.match(describeFailure('no_network'), /No saved network/);
});

test.run();
