/**
 * The scope walk: every social route with a token holding every scope except the ones the route
 * accepts (and their parents) is refused with 403; with one accepted scope it gets past the check.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { KNOWN_SCOPES } from '../../daemon/social/oauth/scopes.js';
import { startSocialDaemon, type SocialHarness } from '../helpers/social.js';

let h: SocialHarness;
const X = '1';

const R = (resource: string, follow = false) => ['read', `read:${resource}`, ...(follow ? ['follow'] : [])];
const W = (resource: string, follow = false) => ['write', `write:${resource}`, ...(follow ? ['follow'] : [])];

/** [method, path, accepted scopes, open without a token] */
const ROUTES: Array<[string, string, string[], boolean?]> = [
  ['GET', '/api/v1/notifications', R('notifications')],
  ['GET', '/api/v1/notifications/unread_count', R('notifications')],
  ['GET', `/api/v1/notifications/${X}`, R('notifications')],
  ['POST', `/api/v1/notifications/${X}/dismiss`, W('notifications')],
  ['POST', '/api/v1/notifications/clear', W('notifications')],
  ['GET', '/api/v2/notifications', R('notifications')],
  ['GET', '/api/v2/notifications/unread_count', R('notifications')],
  ['GET', '/api/v2/notifications/ungrouped-1', R('notifications')],
  ['GET', '/api/v2/notifications/ungrouped-1/accounts', R('notifications')],
  ['POST', '/api/v2/notifications/ungrouped-1/dismiss', W('notifications')],
  ['POST', '/api/v2/notifications/clear', W('notifications')],
  ['GET', '/api/v1/markers', R('statuses')],
  ['POST', '/api/v1/markers', W('statuses')],
  ['POST', '/api/v1/statuses', W('statuses')],
  ['GET', `/api/v1/statuses/${X}`, R('statuses'), true],
  ['DELETE', `/api/v1/statuses/${X}`, W('statuses')],
  ['POST', `/api/v1/statuses/${X}/favourite`, W('favourites')],
  ['POST', `/api/v1/statuses/${X}/unfavourite`, W('favourites')],
  ['POST', `/api/v1/statuses/${X}/reblog`, W('statuses')],
  ['POST', `/api/v1/statuses/${X}/unreblog`, W('statuses')],
  ['POST', `/api/v1/statuses/${X}/bookmark`, W('bookmarks')],
  ['POST', `/api/v1/statuses/${X}/unbookmark`, W('bookmarks')],
  ['POST', `/api/v1/statuses/${X}/pin`, W('accounts')],
  ['POST', `/api/v1/statuses/${X}/unpin`, W('accounts')],
  ['POST', `/api/v1/statuses/${X}/mute`, W('mutes', true)],
  ['POST', `/api/v1/statuses/${X}/unmute`, W('mutes', true)],
  ['GET', `/api/v1/statuses/${X}/context`, R('statuses'), true],
  ['GET', `/api/v1/statuses/${X}/source`, R('statuses')],
  ['GET', `/api/v1/statuses/${X}/history`, R('statuses'), true],
  ['GET', '/api/v1/preferences', R('accounts')],
  ['GET', `/api/v1/statuses/${X}/reblogged_by`, R('accounts'), true],
  ['GET', `/api/v1/statuses/${X}/favourited_by`, R('accounts'), true],
  ['GET', '/api/v1/favourites', R('favourites')],
  ['GET', '/api/v1/bookmarks', R('bookmarks')],
  ['GET', '/api/v1/accounts/verify_credentials', ['profile', ...R('accounts')]],
  ['GET', '/api/v1/verify_credentials', ['profile', ...R('accounts')]],
  ['PATCH', '/api/v1/accounts/update_credentials', W('accounts')],
  ['GET', `/api/v1/accounts/relationships?id[]=${X}`, R('follows', true)],
  ['GET', `/api/v1/accounts/familiar_followers?id[]=${X}`, R('follows', true)],
  ['GET', '/api/v1/accounts/lookup?acct=nobody', R('accounts'), true],
  ['GET', '/api/v1/accounts/search?q=a', R('accounts')],
  ['GET', `/api/v1/accounts/${X}`, R('accounts'), true],
  ['GET', `/api/v1/accounts/${X}/statuses`, R('statuses'), true],
  ['GET', `/api/v1/accounts/${X}/followers`, R('accounts'), true],
  ['GET', `/api/v1/accounts/${X}/following`, R('accounts'), true],
  ['POST', `/api/v1/accounts/${X}/follow`, W('follows', true)],
  ['POST', `/api/v1/accounts/${X}/unfollow`, W('follows', true)],
  ['POST', `/api/v1/accounts/${X}/remove_from_followers`, W('follows', true)],
  ['POST', `/api/v1/accounts/${X}/block`, W('blocks', true)],
  ['POST', `/api/v1/accounts/${X}/unblock`, W('blocks', true)],
  ['POST', `/api/v1/accounts/${X}/mute`, W('mutes', true)],
  ['POST', `/api/v1/accounts/${X}/unmute`, W('mutes', true)],
  ['POST', `/api/v1/accounts/${X}/note`, W('accounts')],
  ['POST', '/api/v1/follows', W('follows', true)],
  ['GET', '/api/v1/follow_requests', R('follows', true)],
  ['POST', `/api/v1/follow_requests/${X}/authorize`, W('follows', true)],
  ['POST', `/api/v1/follow_requests/${X}/reject`, W('follows', true)],
  ['GET', '/api/v1/blocks', R('blocks', true)],
  ['GET', '/api/v1/mutes', R('mutes', true)],
  ['GET', '/api/v1/domain_blocks', R('blocks', true)],
  ['POST', '/api/v1/domain_blocks', W('blocks', true)],
  ['DELETE', '/api/v1/domain_blocks', W('blocks', true)],
  ['POST', '/api/v1/accounts', W('accounts')],
  ['POST', '/api/v1/tags/nestbox/follow', W('follows', true)],
  ['POST', '/api/v1/tags/nestbox/unfollow', W('follows', true)],
  ['GET', '/api/v1/followed_tags', R('follows', true)],
  ['GET', '/api/v1/scheduled_statuses', R('statuses')],
  ['GET', `/api/v1/scheduled_statuses/${X}`, R('statuses')],
  ['PUT', `/api/v1/scheduled_statuses/${X}`, W('statuses')],
  ['DELETE', `/api/v1/scheduled_statuses/${X}`, W('statuses')],
  ['GET', '/api/v1/lists', R('lists')],
  ['POST', '/api/v1/lists', W('lists')],
  ['GET', `/api/v1/lists/${X}`, R('lists')],
  ['PUT', `/api/v1/lists/${X}`, W('lists')],
  ['DELETE', `/api/v1/lists/${X}`, W('lists')],
  ['GET', `/api/v1/lists/${X}/accounts`, R('lists')],
  ['POST', `/api/v1/lists/${X}/accounts`, W('lists')],
  ['DELETE', `/api/v1/lists/${X}/accounts`, W('lists')],
  ['GET', `/api/v1/accounts/${X}/lists`, R('lists')],
  ['GET', `/api/v1/timelines/list/${X}`, R('lists')],
  // Breadth (issue 7)
  ['GET', '/api/v1/timelines/home', R('statuses')],
  ['GET', '/api/v1/timelines/public', R('statuses'), true],
  ['GET', '/api/v1/timelines/tag/nestbox', R('statuses'), true],
  ['POST', '/api/v1/media', W('media')],
  ['POST', '/api/v2/media', W('media')],
  ['GET', `/api/v1/media/${X}`, W('media')],
  ['PUT', `/api/v1/media/${X}`, W('media')],
  ['GET', '/api/v2/search?q=nestbox', R('search'), true],
  ['GET', '/api/v2/filters', R('filters')],
  ['POST', '/api/v2/filters', W('filters')],
  ['GET', `/api/v2/filters/${X}`, R('filters')],
  ['PUT', `/api/v2/filters/${X}`, W('filters')],
  ['DELETE', `/api/v2/filters/${X}`, W('filters')],
  ['GET', `/api/v2/filters/${X}/keywords`, R('filters')],
  ['POST', `/api/v2/filters/${X}/keywords`, W('filters')],
  ...['/api/v2/filters/keywords/', '/api/v2/filter_keywords/', '/api/v1/filters/keywords/'].flatMap((base): Array<[string, string, string[]]> => [
    ['GET', `${base}${X}`, R('filters')], ['PUT', `${base}${X}`, W('filters')], ['DELETE', `${base}${X}`, W('filters')],
  ]),
  ['GET', '/api/v1/announcements', ['read']],
  ['POST', `/api/v1/announcements/${X}/dismiss`, W('accounts')],
  ['PUT', `/api/v1/announcements/${X}/reactions/blobcat`, W('favourites')],
  ['DELETE', `/api/v1/announcements/${X}/reactions/blobcat`, W('favourites')],
  ['POST', '/api/v1/reports', W('reports')],
  ...['/api/v1/push/subscription', '/api/v1/push/subscriptions'].flatMap((path): Array<[string, string, string[]]> => [
    ['POST', path, ['push']], ['GET', path, ['push']], ['PUT', path, ['push']], ['DELETE', path, ['push']],
  ]),
  ['POST', '/api/v1/emails/confirmations', W('accounts')],
  ['GET', '/api/v1/emails/check_confirmation', [...R('accounts'), 'profile']],
  ['GET', '/api/v1/admin/accounts', ['admin:read', 'admin:read:accounts']],
  ['GET', '/api/v2/admin/accounts', ['admin:read', 'admin:read:accounts']],
  ['GET', `/api/v1/admin/accounts/${X}`, ['admin:read', 'admin:read:accounts']],
  ...['approve', 'reject', 'action', 'unsilence', 'unsuspend', 'enable'].map((action): [string, string, string[]] => ['POST', `/api/v1/admin/accounts/${X}/${action}`, ['admin:write', 'admin:write:accounts']]),
];

test.before(async () => {
  h = await startSocialDaemon();
  await h.account('walker', { owner: true });
});
test.after(async () => { await h?.stop(); });

test('every route refuses a token lacking its scope with 403 "This action is outside the authorized scopes"', async () => {
  for (const [method, path, accepted] of ROUTES) {
    const lacking = KNOWN_SCOPES.filter((scope) => !accepted.includes(scope) && !accepted.some((a) => a.startsWith(`${scope}:`)));
    const token = await h.token('walker', lacking.join(' '));
    const res = await h.api(token, method, path, method === 'GET' ? undefined : {});
    assert.is(res.status, 403, `${method} ${path} with ${lacking.length} other scopes`);
    assert.equal(res.body, { error: 'This action is outside the authorized scopes' }, `${method} ${path}`);
  }
});

test('every route lets each of its accepted scopes past the scope check', async () => {
  for (const [method, path, accepted] of ROUTES) {
    for (const scope of accepted) {
      const token = await h.token('walker', scope);
      const res = await h.api(token, method, path, method === 'GET' ? undefined : {});
      assert.not.equal(res.body?.error, 'This action is outside the authorized scopes', `${method} ${path} with ${scope}`);
      assert.not.equal(res.status, 401, `${method} ${path} with ${scope}`);
      assert.ok(res.status < 500, `${method} ${path} with ${scope}: ${res.status}`);
    }
  }
});

test('without a token, closed routes answer 401 and open routes do not', async () => {
  for (const [method, path, , open] of ROUTES) {
    const res = await h.api(null, method, path, method === 'GET' ? undefined : {});
    if (open) assert.not.equal(res.status, 401, `${method} ${path}`);
    else {
      assert.is(res.status, 401, `${method} ${path}`);
      assert.equal(res.body, { error: 'The access token is invalid' });
    }
  }
});

test('an app-only token on a user route is 422 "This method requires an authenticated user"', async () => {
  const app = await h.api(null, 'POST', '/api/v1/apps', { client_name: 'walker app', redirect_uris: 'urn:ietf:wg:oauth:2.0:oob', scopes: 'read write' });
  const token = await h.api(null, 'POST', '/oauth/token', { grant_type: 'client_credentials', client_id: app.body.client_id, client_secret: app.body.client_secret, scope: 'read write' });
  const res = await h.api(token.body.access_token, 'GET', '/api/v1/notifications');
  assert.is(res.status, 422);
  assert.equal(res.body, { error: 'This method requires an authenticated user' });
});

test('closed registrations (the default) refuse sign-up with 403', async () => {
  const app = await h.api(null, 'POST', '/api/v1/apps', { client_name: 'signup', redirect_uris: 'urn:ietf:wg:oauth:2.0:oob', scopes: 'write' });
  const token = await h.api(null, 'POST', '/oauth/token', { grant_type: 'client_credentials', client_id: app.body.client_id, client_secret: app.body.client_secret, scope: 'write' });
  const res = await h.api(token.body.access_token, 'POST', '/api/v1/accounts', { username: 'x', email: 'x@example.test', password: 'long enough pw', agreement: true });
  assert.is(res.status, 403);
  assert.equal(res.body, { error: 'This action is not allowed' });
});

test.run();
