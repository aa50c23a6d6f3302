/** E-mail confirmation through a real SMTP server on loopback (smtp-server), and no demand without SMTP. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SMTPServer } from 'smtp-server';
import type { AddressInfo } from 'node:net';
import { startSocialDaemon, type SocialHarness } from '../helpers/social.js';

let h: SocialHarness;
let smtp: SMTPServer;
const mails: Array<{ to: string[]; text: string }> = [];

test.before(async () => {
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      let text = '';
      stream.on('data', (c) => {
        text += c;
      });
      stream.on('end', () => {
        mails.push({ to: session.envelope.rcptTo.map((r) => r.address), text });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  const port = (smtp.server.address() as AddressInfo).port;
  h = await startSocialDaemon({ NESTBOX_SMTP_URL: `smtp://127.0.0.1:${port}`, NESTBOX_REGISTRATIONS: 'open' });
});
test.after(async () => {
  await h?.stop();
  await new Promise<void>((r) => smtp.close(() => r()));
});

async function signUp(username: string) {
  const app = (
    await h.api(null, 'POST', '/api/v1/apps', {
      client_name: 'signup app',
      redirect_uris: 'urn:ietf:wg:oauth:2.0:oob',
      scopes: 'read write',
    })
  ).body;
  const appToken = (
    await h.api(null, 'POST', '/oauth/token', {
      grant_type: 'client_credentials',
      client_id: app.client_id,
      client_secret: app.client_secret,
      scope: 'read write',
    })
  ).body.access_token;
  const res = await h.api(appToken, 'POST', '/api/v1/accounts', {
    username,
    email: `${username}@example.test`,
    password: 'a long password 123',
    agreement: true,
    locale: 'en',
  });
  assert.is(res.status, 200, JSON.stringify(res.body));
  return res.body.access_token as string;
}

async function waitForMail(to: string): Promise<{ to: string[]; text: string }> {
  for (let i = 0; i < 100; i++) {
    const mail = mails.find((m) => m.to.includes(to));
    if (mail) return mail;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no mail to ${to}`);
}

test('a sign-up gets a confirmation mail; the link confirms; check_confirmation tells', async () => {
  const token = await signUp('erin');
  assert.is((await h.api(token, 'GET', '/api/v1/emails/check_confirmation')).body, false);
  const refused = await h.api(token, 'GET', '/api/v1/timelines/home');
  assert.is(refused.status, 403, 'an unconfirmed login is refused elsewhere');
  assert.equal(refused.body, { error: 'Your login is missing a confirmed e-mail address' });
  const mail = await waitForMail('erin@example.test');
  const link = /http:\/\/\S+confirmation_token=([\w-]+)/.exec(mail.text.replace(/=\r?\n/g, '').replace(/=3D/g, '='))!;
  assert.ok(link, mail.text);
  assert.is((await h.api(null, 'GET', `/auth/confirmation?confirmation_token=${link[1]}`)).status, 200);
  assert.is((await h.api(token, 'GET', '/api/v1/emails/check_confirmation')).body, true);
  assert.is((await h.api(token, 'GET', '/api/v1/timelines/home')).status, 200, 'confirmed: the token works everywhere');
  const again = await h.api(token, 'POST', '/api/v1/emails/confirmations');
  assert.is(again.status, 403, 'only while unconfirmed');
});

test('resending is for the app the user signed up with, and may change the address', async () => {
  const token = await signUp('finn');
  await waitForMail('finn@example.test');
  const other = await h.account('grace');
  const res = await h.api(token, 'POST', '/api/v1/emails/confirmations', { email: 'finn@new.example.test' });
  assert.is(res.status, 200, JSON.stringify(res.body));
  await waitForMail('finn@new.example.test');
  const adminMade = await h.api(other.token, 'POST', '/api/v1/emails/confirmations');
  assert.is(adminMade.status, 403);
  assert.match(adminMade.body.error, /application the user originally signed-up with/);
  assert.is(
    (await h.api(token, 'POST', '/api/v1/emails/confirmations', { email: 'grace@example.test' })).status,
    422,
    'address taken',
  );
});

test('without SMTP the box does not demand confirmation', async () => {
  const plain = await startSocialDaemon({ NESTBOX_REGISTRATIONS: 'open' });
  try {
    const app = (
      await plain.api(null, 'POST', '/api/v1/apps', {
        client_name: 'a',
        redirect_uris: 'urn:ietf:wg:oauth:2.0:oob',
        scopes: 'read write',
      })
    ).body;
    const appToken = (
      await plain.api(null, 'POST', '/oauth/token', {
        grant_type: 'client_credentials',
        client_id: app.client_id,
        client_secret: app.client_secret,
        scope: 'read write',
      })
    ).body.access_token;
    const token = (
      await plain.api(appToken, 'POST', '/api/v1/accounts', {
        username: 'hana',
        email: 'hana@example.test',
        password: 'a long password 123',
        agreement: true,
        locale: 'en',
      })
    ).body.access_token;
    assert.is((await plain.api(token, 'GET', '/api/v1/emails/check_confirmation')).body, true);
    assert.is((await plain.api(token, 'GET', '/api/v1/timelines/home')).status, 200, 'nothing demanded');
    assert.is((await plain.api(token, 'POST', '/api/v1/emails/confirmations')).status, 403);
  } finally {
    await plain.stop();
  }
});

test.run();
