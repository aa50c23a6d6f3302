/**
 * Every social route against hostile input, with a token that holds every user scope and the
 * owner's: odd ids in the path, odd query parameters, bodies of the wrong types, malformed JSON.
 * Nothing may answer 5xx, and every error is a JSON {"error": "..."}.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startSocialDaemon, type SocialHarness } from '../helpers/social.js';
import { ROUTES, X } from '../helpers/social-routes.js';

let h: SocialHarness;
let token: string;

const IDS = ['%25', '99999999999999999999999', 'abc', '-1', '%00', '1e3', '..%2F..'];
const QUERY = 'limit=%25&max_id=%25&since_id=-1&min_id=abc&id[]=%25&types[]=nope&exclude_types=x&account_id=%00&expand_accounts=%25';
const BODIES: unknown[] = [
  undefined,
  { status: [1], title: {}, account_ids: 'x', scheduled_at: '%', id: [null], limit: '-5', visibility: 42, media_ids: { a: 1 }, keywords_attributes: 'x', context: 7 },
  { status: 'x'.repeat(10_000), title: 'x'.repeat(10_000), scheduled_at: '9999-99-99', in_reply_to_id: '%25', exclusive: 'maybe', replies_policy: null },
  '{"status": "unterminated',
];

test.before(async () => {
  h = await startSocialDaemon();
  await h.account('hostile', { owner: true });
  token = await h.token('hostile', 'read write follow push profile admin:read admin:write');
});
test.after(async () => { await h?.stop(); });

/** Path parts the sweep replaces with hostile values: ids, a hashtag, a group key, a reaction. */
const PLACEHOLDERS = [`/${X}`, '/nestbox', '/ungrouped-1', '/blobcat'];
/** Open routes (no scopes to walk) that take path parts too. */
const OPEN_ROUTES: Array<[string, string]> = [['GET', '/api/v1/tags/nestbox'], ['GET', `/api/v1/statuses/${X}/history`], ['GET', '/api/v1/trends/tags']];

test('no route answers 5xx to hostile ids, parameters or bodies; errors are {"error": …}', async () => {
  let requests = 0;
  for (const [method, path] of [...ROUTES, ...OPEN_ROUTES]) {
    const placeholder = PLACEHOLDERS.find((part) => path.includes(part));
    for (const id of placeholder ? IDS : ['']) {
      const target = placeholder ? path.replace(placeholder, `/${id}`) : path;
      const url = `${target}${target.includes('?') ? '&' : '?'}${QUERY}`;
      for (const body of method === 'GET' ? [undefined] : BODIES) {
        const res = await h.api(token, method, url, body);
        requests += 1;
        const where = `${method} ${url} ${typeof body === 'string' ? body : JSON.stringify(body)?.slice(0, 60)}`;
        assert.ok(res.status < 500, `${where}: ${res.status} ${JSON.stringify(res.body)}`);
        if (res.status >= 400) assert.type(res.body?.error, 'string', `${where}: ${res.status} ${JSON.stringify(res.body)}`);
      }
    }
  }
  assert.ok(requests > 500, `${requests} requests`);
  assert.is((await h.daemon.json('/healthz')).status, 200, 'and the daemon is still well');
});

test.run();
