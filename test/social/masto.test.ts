/**
 * End to end with a real client library (masto.js): register an app, get an app token, register
 * an account, post, favourite from another account, and read v1 and grouped v2 notifications;
 * polls and the notification policy with its requests.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createOAuthAPIClient, createRestAPIClient } from 'masto';
import { startSocialDaemon, type SocialHarness } from '../helpers/social.js';

let h: SocialHarness;

test.before(async () => {
  h = await startSocialDaemon({ NESTBOX_REGISTRATIONS: 'open' });
});
test.after(async () => {
  await h?.stop();
});

test('masto.js registers an app and an account, posts, favourites and reads v1 and v2 notifications', async () => {
  const anonymous = createRestAPIClient({ url: h.url });
  const app = await anonymous.v1.apps.create({
    clientName: 'masto e2e',
    redirectUris: 'urn:ietf:wg:oauth:2.0:oob',
    scopes: 'read write follow',
    website: 'https://example.test',
  });
  assert.is(app.name, 'masto e2e');
  assert.ok(app.clientId && app.clientSecret);

  const oauth = createOAuthAPIClient({ url: h.url });
  const appToken = await oauth.token.create({
    grantType: 'client_credentials',
    clientId: app.clientId,
    clientSecret: app.clientSecret,
    redirectUri: 'urn:ietf:wg:oauth:2.0:oob',
    scope: 'read write follow',
  });
  const asApp = createRestAPIClient({ url: h.url, accessToken: appToken.accessToken });
  const verified = await asApp.v1.apps.verifyCredentials();
  assert.is(verified.name, 'masto e2e');

  const userToken = await asApp.v1.accounts.create({
    username: 'masto_user',
    email: 'masto@example.test',
    password: 'correct horse battery',
    agreement: true,
    locale: 'en',
  });
  const user = createRestAPIClient({ url: h.url, accessToken: userToken.accessToken });
  const me = await user.v1.accounts.verifyCredentials();
  assert.is(me.username, 'masto_user');
  assert.is(me.source.privacy, 'public');

  const fan = await h.account('fan');
  const fanClient = createRestAPIClient({ url: h.url, accessToken: fan.token });

  const status = await user.v1.statuses.create({ status: 'Hello from masto.js', visibility: 'public' });
  assert.is(status.account.id, me.id);
  assert.is(status.application?.name, 'masto e2e');
  const favourited = await fanClient.v1.statuses.$select(status.id).favourite();
  assert.is(favourited.favouritesCount, 1);
  assert.is(favourited.favourited, true);
  await fanClient.v1.accounts.$select(me.id).follow();
  await fanClient.v1.statuses.create({ status: '@masto_user nice post' });

  const v1 = await user.v1.notifications.list({ limit: 10 });
  assert.equal(
    v1.map((n) => n.type),
    ['mention', 'follow', 'favourite'],
  );
  assert.is(v1[2].status?.id, status.id);
  assert.is(v1[2].account.id, fan.id);

  const v2 = await user.v2.notifications.list({ expandAccounts: 'partial_avatars' });
  assert.equal(
    v2.notificationGroups.map((g) => g.type),
    ['mention', 'follow', 'favourite'],
  );
  const favGroup = v2.notificationGroups[2];
  assert.equal(favGroup.sampleAccountIds, [fan.id]);
  assert.is(favGroup.statusId, status.id);
  assert.equal(
    v2.accounts.map((a) => a.id),
    [fan.id],
  );
  assert.ok(v2.statuses.some((s) => s.id === status.id));

  const unread = await user.v2.notifications.unreadCount.fetch();
  assert.is(unread.count, 3);
  await user.v1.markers.create({ notifications: { lastReadId: v1[0].id } });
  assert.is((await user.v2.notifications.unreadCount.fetch()).count, 0);
});

test('masto.js: a poll posted, voted on and read back; the notification policy and a request accepted', async () => {
  const author = await h.account('pollster');
  const voter = await h.account('voter');
  const stranger = await h.account('masto_stranger');
  const asAuthor = createRestAPIClient({ url: h.url, accessToken: author.token });
  const asVoter = createRestAPIClient({ url: h.url, accessToken: voter.token });
  const asStranger = createRestAPIClient({ url: h.url, accessToken: stranger.token });

  const status = await asAuthor.v1.statuses.create({
    status: 'Tabs or spaces?',
    poll: { options: ['tabs', 'spaces'], expiresIn: 3600, multiple: false },
  });
  assert.equal(
    status.poll?.options.map((o) => o.title),
    ['tabs', 'spaces'],
  );
  const voted = await asVoter.v1.polls.$select(status.poll!.id).votes.create({ choices: [1] });
  assert.equal(voted.ownVotes, [1]);
  assert.equal(
    voted.options.map((o) => o.votesCount),
    [0, 1],
  );
  assert.is((await asAuthor.v1.polls.$select(status.poll!.id).fetch()).votersCount, 1);

  const policy = await asAuthor.v2.notifications.policy.fetch();
  assert.is(policy.forPrivateMentions, 'filter');
  assert.is((await asAuthor.v2.notifications.policy.update({ forNewAccounts: 'filter' })).forNewAccounts, 'filter');
  await asAuthor.v2.notifications.policy.update({ forNewAccounts: 'accept' });
  await asStranger.v1.statuses.create({ status: '@pollster psst', visibility: 'direct' });
  const [request] = await asAuthor.v1.notifications.requests.list();
  assert.is(request?.account.id, stranger.id);
  assert.is(request?.notificationsCount, '1');
  await asAuthor.v1.notifications.requests.$select(request.id).accept();
  assert.is((await asAuthor.v1.notifications.requests.merged.fetch()).merged, true);
  const mentions = await asAuthor.v1.notifications.list({ types: ['mention'] });
  assert.equal(
    mentions.map((n) => n.account.id),
    [stranger.id],
  );
});

test.run();
