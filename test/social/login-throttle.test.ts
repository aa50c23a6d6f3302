/**
 * Login throttling on the login form: per account and per client address (the socket's, not
 * X-Forwarded-For), 429 with Retry-After and a message on the page, the right password refused
 * too while throttled, no password hashed for a throttled attempt, allowed again after the wait,
 * and a longer wait for a second offence. Limits are small here (5 per 2-3 s) through the config.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { request } from 'node:http';
import { startSocialDaemon, type SocialHarness, type TestAccount } from '../helpers/social.js';

let h: SocialHarness;
let app: { client_id: string };
let pat: TestAccount;

test.before(async () => {
  h = await startSocialDaemon({
    NESTBOX_LOG_LEVEL: 'debug',
    NESTBOX_LOGIN_LIMIT_ACCOUNT: '5/8',
    NESTBOX_LOGIN_LIMIT_ADDRESS: '5/8',
  });
  pat = await h.account('pat');
  await h.account('sam');
  app = (
    await h.api(null, 'POST', '/api/v1/apps', {
      client_name: 'Login test',
      redirect_uris: 'urn:ietf:wg:oauth:2.0:oob',
      scopes: 'read',
    })
  ).body;
});
test.after(async () => {
  await h?.stop();
});

interface Answer {
  status: number;
  retryAfter: string | undefined;
  body: string;
}

/** The login form posted from `from` (a loopback address of this machine). */
function login(
  name: string,
  password: string,
  from = '127.0.0.1',
  headers: Record<string, string> = {},
): Promise<Answer> {
  const body = new URLSearchParams({
    response_type: 'code',
    client_id: app.client_id,
    redirect_uri: 'urn:ietf:wg:oauth:2.0:oob',
    scope: 'read',
    login: name,
    password,
    decision: 'allow',
  }).toString();
  const url = new URL('/oauth/authorize', h.url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        localAddress: from,
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          'content-length': Buffer.byteLength(body),
          ...headers,
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode!, retryAfter: res.headers['retry-after'], body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const hashes = () => h.daemon.logs.filter((line) => line.msg === 'password hashed').length;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('wrong passwords for one account are throttled by account: 429 with Retry-After, the right one refused too, unhashed, then allowed', async () => {
  const before = hashes();
  for (let i = 0; i < 5; i++) {
    // Username and e-mail name the same account: one budget.
    const res = await login(i % 2 ? 'pat' : 'pat@example.test', `wrong-${i}`);
    assert.is(res.status, 401, `attempt ${i + 1}`);
  }
  assert.is(hashes() - before, 5);
  const throttled = await login('pat', 'wrong-6');
  assert.is(throttled.status, 429);
  assert.is(throttled.retryAfter, '8');
  assert.match(throttled.body, /Too many sign-in attempts\. Try again in 8 seconds\./);
  assert.match(throttled.body, /<form/, 'the form is shown again');
  const right = await login('pat', 'pw-pat-123');
  assert.is(right.status, 429, 'the right password is refused while throttled');
  assert.ok(Number(right.retryAfter) >= 1 && Number(right.retryAfter) <= 8, right.retryAfter);
  assert.is(hashes() - before, 5, 'no password was hashed for a throttled attempt');
  assert.is((await login('sam', 'pw-sam-123')).status, 200, 'another account is not throttled');

  await sleep(Number(right.retryAfter) * 1000 + 200);
  const after = await login('pat', 'pw-pat-123');
  assert.is(after.status, 200, 'allowed again after the wait');
  assert.match(after.body, /id="code"/);

  for (let i = 0; i < 4; i++) assert.is((await login('pat', `again-${i}`)).status, 401);
  const again = await login('pat', 'again-5');
  assert.is(again.status, 429);
  assert.is(again.retryAfter, '16', 'a second offence waits twice as long');
  const logged = h.daemon.logs
    .filter((line) => line.msg === 'login attempts throttled' && line.rule === 'login/account')
    .map((line) => [line.account_id, line.strikes, line.wait_s]);
  assert.equal(
    logged,
    [
      [pat.id, 1, 8],
      [pat.id, 2, 16],
    ],
    'each throttling is logged once, by account id',
  );
});

test('attempts from one address are throttled by address, whatever X-Forwarded-For says; other addresses and loopback are not', async () => {
  const before = hashes();
  for (let i = 0; i < 5; i++)
    assert.is((await login(`nobody${i}`, 'guess', '127.0.0.2')).status, 401, `attempt ${i + 1}`);
  const throttled = await login('nobody5', 'guess', '127.0.0.2');
  assert.is(throttled.status, 429);
  assert.is(throttled.retryAfter, '8');
  const right = await login('sam', 'pw-sam-123', '127.0.0.2', { 'x-forwarded-for': '192.0.2.7' });
  assert.is(right.status, 429, 'the right password from the throttled address is refused, X-Forwarded-For or not');
  assert.is(
    hashes() - before,
    5,
    'a login naming no account is hashed like any other (its timing tells nothing); a throttled one is not',
  );
  assert.ok(
    h.daemon.logs.some(
      (line) =>
        line.msg === 'login attempts throttled' && line.rule === 'login/address' && line.address === '127.0.0.2',
    ),
  );
  assert.is((await login('sam', 'pw-sam-123', '127.0.0.3')).status, 200, 'another address may sign in');
  for (let i = 0; i < 7; i++)
    assert.is(
      (await login(`local${i}`, 'guess', '127.0.0.1')).status,
      401,
      'the box itself (or a proxy on it) is not counted by address',
    );

  await sleep(Number(right.retryAfter) * 1000 + 200);
  assert.is((await login('sam', 'pw-sam-123', '127.0.0.2')).status, 200, 'allowed again after the wait');
});

test('the log never holds a password', () => {
  const text = JSON.stringify(h.daemon.logs);
  for (const secret of ['pw-pat-123', 'pw-sam-123', 'wrong-1', 'guess']) assert.not.ok(text.includes(secret), secret);
});

test.run();
