/**
 * The public pages in a real browser at phone and desktop size: each renders without scripts under
 * its CSP and passes axe-core with no serious or critical violation. With
 * NESTBOX_UPDATE_SCREENSHOTS=1 each is saved as a screenshot under docs/screenshots/ (the README
 * shows them); a plain run takes none, so it leaves the tree as it was.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { launchChromiumContext } from '../helpers/chromium.js';
import { REPO_ROOT } from '../helpers/paths.js';
import { startSocialDaemon, type SocialHarness, type TestAccount } from '../helpers/social.js';

const BODY_BACKGROUND = 'getComputedStyle(document.body).backgroundColor';
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const SHOTS = process.env.NESTBOX_UPDATE_SCREENSHOTS === '1' ? join(REPO_ROOT, 'docs', 'screenshots') : null;
const SIZES = [
  { name: 'phone', width: 390, height: 844 },
  { name: 'desktop', width: 1280, height: 900 },
];

interface AxeResult {
  violations: Array<{ id: string; impact: string | null; nodes: Array<{ target: unknown }> }>;
}

let h: SocialHarness;
let chromium: Awaited<ReturnType<typeof launchChromiumContext>>;
let ada: TestAccount;
let postId = '';

async function post(who: TestAccount, body: Record<string, unknown>): Promise<string> {
  const res = await h.api(who.token, 'POST', '/api/v1/statuses', body);
  assert.is(res.status, 200, JSON.stringify(res.body));
  return res.body.id as string;
}

test.before(async () => {
  h = await startSocialDaemon({ NESTBOX_SETUP_AP_ADDRESS: '192.168.4.1' });
  chromium = await launchChromiumContext();
  ada = await h.account('ada', { owner: true });
  const ben = await h.account('ben');
  await h.api(ada.token, 'PATCH', '/api/v1/accounts/update_credentials', {
    display_name: 'Ada Lovelace',
    note: 'Engines, looms and the occasional poem. Posting from a box under the stairs.',
    fields_attributes: { 0: { name: 'Site', value: 'https://ada.example' }, 1: { name: 'Pronouns', value: 'she/her' } },
  });
  await post(ada, { status: 'Welcome to my corner of the fediverse! #hello' });
  const pinned = await post(ada, { status: 'Pinned: what this account is about — notes on engines and gardens.' });
  await h.api(ada.token, 'POST', `/api/v1/statuses/${pinned}/pin`);
  await post(ada, { status: 'The ending surprised me.', spoiler_text: 'Book spoilers' });
  postId = await post(ada, {
    status: 'Which should the garden get this year?',
    poll: { options: ['Tomatoes', 'Beans', 'Both'], expires_in: 3600 },
  });
  await post(ben, { status: '@ada Beans, always beans.', in_reply_to_id: postId });
  const boosted = await post(ben, { status: 'Seed swap at the library on Saturday.' });
  await h.api(ada.token, 'POST', `/api/v1/statuses/${boosted}/reblog`);
  if (SHOTS) mkdirSync(SHOTS, { recursive: true });
});
test.after(async () => {
  await chromium?.close();
  await h?.stop();
});

for (const [name, path] of [
  ['landing', () => '/'],
  ['profile', () => '/@ada'],
  ['post', () => `/@ada/${postId}`],
] as const) {
  test(`the ${name} page renders without scripts, passes axe at phone and desktop size`, async () => {
    for (const size of SIZES) {
      const page = await chromium.context.newPage();
      try {
        const blocked: string[] = [];
        page.on('console', (message) => {
          if (message.text().includes('Content Security Policy')) blocked.push(message.text());
        });
        // Browsers ask for /favicon.ico by themselves; the pages name no icon.
        page.on('response', (res) => {
          if (res.status() >= 400 && !res.url().endsWith('/favicon.ico')) blocked.push(`${res.status()} ${res.url()}`);
        });
        await page.setViewportSize({ width: size.width, height: size.height });
        const response = await page.goto(h.url + path());
        assert.is(response?.status(), 200);
        assert.is(await page.locator('script').count(), 0, 'no scripts');
        assert.is(await page.locator('main').count(), 1, 'a main landmark');
        assert.equal(blocked, [], 'nothing the CSP blocked, nothing failed to load');
        const css = await page.evaluate<string>(BODY_BACKGROUND);
        assert.is.not(css, 'rgba(0, 0, 0, 0)', 'the stylesheet applied');
        // Evaluated through the DevTools protocol, which the page's CSP does not govern.
        await page.evaluate(AXE_SOURCE);
        const result = await page.evaluate<AxeResult>('axe.run(document, { resultTypes: ["violations"] })');
        const serious = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
        assert.equal(
          serious.map((v) => `${v.id}: ${JSON.stringify(v.nodes.map((n) => n.target))}`),
          [],
          `${name} at ${size.name}`,
        );
        if (SHOTS) await page.screenshot({ path: join(SHOTS, `${name}-${size.name}.png`), fullPage: true });
      } finally {
        await page.close();
      }
    }
  });
}

test('dark mode follows the system setting', async () => {
  const page = await chromium.context.newPage();
  try {
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.goto(`${h.url}/@ada`);
    const dark = await page.evaluate<string>(BODY_BACKGROUND);
    await page.emulateMedia({ colorScheme: 'light' });
    const light = await page.evaluate<string>(BODY_BACKGROUND);
    assert.is.not(dark, light);
    assert.is(light, 'rgb(246, 246, 248)');
  } finally {
    await page.close();
  }
});

test.run();
