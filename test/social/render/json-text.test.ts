/** Pre-rendered JSON: embedded verbatim by renderJson, a plain object everywhere else, never forgeable. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { markRendered, renderJson, renderJsonBytes } from '../../../daemon/social/render/json-text.js';

const account = () => ({
  id: '1',
  acct: 'alice',
  emojis: [] as unknown[],
  fields: [{ name: 'a', value: 'b' }],
  note: 'é "quoted" \u2028',
});

test('renderJson writes marked objects as their stored text and equals JSON.stringify', () => {
  const shared = markRendered(account());
  const body = { accounts: [shared, shared], statuses: [{ id: '9', account: shared, mentions: [] }], count: 2 };
  const text = renderJson(body);
  assert.is(
    text,
    JSON.stringify({
      accounts: [account(), account()],
      statuses: [{ id: '9', account: account(), mentions: [] }],
      count: 2,
    }),
  );
  assert.equal(JSON.parse(text).statuses[0].account, account());
});

test('renderJsonBytes is the UTF-8 of the same JSON, multi-byte characters on both sides of embedded bytes', () => {
  const shared = markRendered({ ...account(), display_name: 'Zoë 🐦' });
  const body = { before: 'ünïcödé ✓', accounts: [shared], after: '🏠', count: 1 };
  const bytes = renderJsonBytes(body);
  assert.ok(
    bytes.equals(
      Buffer.from(
        JSON.stringify({
          before: 'ünïcödé ✓',
          accounts: [{ ...account(), display_name: 'Zoë 🐦' }],
          after: '🏠',
          count: 1,
        }),
      ),
    ),
  );
  assert.is(bytes.toString('utf8'), renderJson(body));
  assert.ok(renderJsonBytes({ plain: 'é' }).equals(Buffer.from('{"plain":"é"}')));
});

test('the stored text is what is written, so a text that differs from the object shows (the caller owns it)', () => {
  const marked = markRendered({ id: '1' }, '{"id":"1","rendered":true}');
  assert.is(renderJson([marked]), '[{"id":"1","rendered":true}]');
});

test('outside renderJson a marked object serializes as a whole object', () => {
  const shared = markRendered(account());
  assert.is(JSON.stringify({ a: shared }), JSON.stringify({ a: account() }));
});

test('marked objects are frozen through and through: they are shared between responses', () => {
  const shared = markRendered(account()) as ReturnType<typeof account>;
  assert.ok(Object.isFrozen(shared) && Object.isFrozen(shared.fields) && Object.isFrozen(shared.fields[0]));
  assert.throws(() => {
    (shared as { acct: string }).acct = 'mallory';
  });
  assert.is(shared.acct, 'alice');
});

test('a string shaped like a placeholder is written as the string it is', () => {
  const shared = markRendered({ id: '1' });
  // Learn the placeholder shape by stringifying inside renderJson's own pass is impossible from
  // outside; strings that look like one (hex nonce, colon, index) are plain data.
  const forged = { id: '2', display_name: '000000000000000000000000:0', account: shared };
  assert.is(
    renderJson(forged),
    JSON.stringify({ id: '2', display_name: '000000000000000000000000:0', account: { id: '1' } }),
  );
  assert.is(renderJsonBytes(forged).toString(), renderJson(forged));
});

test('bodies without marked objects, and primitives, are plain JSON', () => {
  assert.is(renderJson({ a: [1, 'two', null, true] }), '{"a":[1,"two",null,true]}');
  assert.is(renderJson([]), '[]');
});

test('a page of stored lists beside plain fields is the same JSON, whatever the fields hold', () => {
  const alice = markRendered(account());
  const bob = markRendered({ ...account(), id: '2', acct: 'bob' });
  const when = new Date(Date.UTC(2026, 0, 2));
  const page = {
    'ke"y ✓': [alice, bob],
    empty: [],
    skipped: undefined,
    fn: () => 1,
    count: 3,
    at: when,
    nested: { author: alice, list: [bob] },
    mixed: [alice, { id: '3' }],
    nulls: [null, alice],
    text: 'Zoë 🐦',
    none: null,
  };
  const plain = JSON.parse(JSON.stringify(page));
  assert.ok(renderJsonBytes(page).equals(Buffer.from(JSON.stringify(plain))));
  assert.equal(JSON.parse(renderJson(page)), plain);
});

test('a list of stored objects alone is the same JSON; so are objects with nothing stored in lists', () => {
  const alice = markRendered(account());
  assert.is(renderJson([alice, alice]), JSON.stringify([account(), account()]));
  assert.is(renderJson({}), '{}');
  assert.is(renderJson({ only: undefined, lists: [[alice]] }), JSON.stringify({ lists: [[account()]] }));
  assert.is(renderJson({ a: [alice], b: undefined }), JSON.stringify({ a: [account()] }));
});

test.run();
