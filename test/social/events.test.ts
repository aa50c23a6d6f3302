/** The social event bus: subscriptions keyed by their owner, one call takes back all of a part's. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SocialEventBus } from '../../daemon/social/events.js';

test('removeListeners takes back every subscription of its owner and no other', () => {
  const bus = new SocialEventBus();
  const seen: string[] = [];
  const streaming = {};
  const federation = {};
  bus.on(streaming, 'status.created', ({ statusId }) => seen.push(`streaming created ${statusId}`));
  bus.on(streaming, 'status.deleted', ({ statusId }) => seen.push(`streaming deleted ${statusId}`));
  bus.on(federation, 'status.created', ({ statusId }) => seen.push(`federation created ${statusId}`));
  bus.emit('status.created', { statusId: '1', accountId: 'a', local: true });
  bus.removeListeners(streaming);
  bus.emit('status.created', { statusId: '2', accountId: 'a', local: true });
  bus.emit('status.deleted', { statusId: '2', accountId: 'a', uri: 'u' });
  assert.equal(seen, ['streaming created 1', 'federation created 1', 'federation created 2']);
  assert.is(bus.listenerCount('status.deleted'), 0);
  assert.is(bus.listenerCount('status.created'), 1);
  bus.removeListeners(federation);
  assert.is(bus.listenerCount('status.created'), 0);
});

test('a listener that unsubscribes during an event does not keep the others from it', () => {
  const bus = new SocialEventBus();
  const seen: string[] = [];
  const first = {};
  bus.on(first, 'account.created', () => {
    seen.push('first');
    bus.removeListeners(first);
  });
  bus.on({}, 'account.created', () => seen.push('second'));
  bus.emit('account.created', { accountId: '1' });
  bus.emit('account.created', { accountId: '2' });
  assert.equal(seen, ['first', 'second', 'second']);
});

test('one owner may subscribe the same function to several events', () => {
  const bus = new SocialEventBus();
  const owner = {};
  let calls = 0;
  const count = () => calls++;
  bus.on(owner, 'account.created', count);
  bus.on(owner, 'account.updated', count);
  bus.emit('account.created', { accountId: '1' });
  bus.emit('account.updated', { accountId: '1' });
  bus.removeListeners(owner);
  bus.emit('account.updated', { accountId: '1' });
  assert.is(calls, 2);
});

test.run();
