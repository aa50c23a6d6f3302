/**
 * Every route the daemon mounts (read from its own route table: the Mastodon API, the appliance
 * API, the setup portal, OAuth, well-known documents, ActivityPub actors, collections and inboxes)
 * against hostile input: odd path values, hostile query strings, bodies of the wrong types, huge
 * and negative numbers, NUL and control characters, invalid UTF-8, lying Content-Encodings and
 * oversize bodies, with the owner's all-scopes token and without a token. Nothing may answer 5xx
 * or leave a request unanswered, and every error is a JSON {"error": "..."}.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startSocialDaemon, type SocialHarness } from '../helpers/social.js';
import { ROUTES } from '../helpers/social-routes.js';
import { hostileBodies, PATH_VALUES, QUERIES, type HostileBody } from '../helpers/hostile-values.js';

let h: SocialHarness;
let token: string;
let statusId: string;
let table: Array<{ method: string; path: string }>;

test.before(async () => {
  // Debug level: the daemon logs its route table at start-up.
  h = await startSocialDaemon({ NESTBOX_LOG_LEVEL: 'debug' });
  await h.account('hostile', { owner: true });
  token = await h.token('hostile', 'read write follow push profile admin:read admin:write');
  statusId = (await h.api(token, 'POST', '/api/v1/statuses', { status: 'a real status for real ids' })).body.id;
  const routes = (await h.daemon.waitForLog((line) => line.msg === 'http routes')).routes as string[];
  table = routes.map((entry) => {
    const [method, path] = entry.split(' ');
    return { method: method, path: path };
  });
});
test.after(async () => {
  await h?.stop();
});

const PARAM = /:[a-z_]+/gi;

function fill(path: string, value: string): string {
  return path.replace(PARAM, (name) => (value === 'real' ? (name === ':username' ? 'hostile' : statusId) : value));
}

/** `route`: the path as mounted, placeholders and all. */
interface Attempt {
  method: string;
  route: string;
  url: string;
  token: string | null;
  body?: HostileBody;
}

/** Radio actions of the appliance API: they read no body, and each takes seconds of the simulated coprocessor. */
const RADIO_ACTIONS = ['/api/nestbox/v1/scan', '/api/nestbox/v1/restart_coprocessor', '/api/nestbox/v1/setup_mode'];

/** Each route: every hostile path value, hostile queries, and (with a body) every hostile body. */
function attempts(method: string, path: string): Attempt[] {
  const values = /:\w/.test(path) ? ['real', ...PATH_VALUES] : ['real'];
  const bodies = RADIO_ACTIONS.includes(path) ? hostileBodies().slice(0, 2) : hostileBodies();
  const list: Array<Omit<Attempt, 'route'>> = [];
  values.forEach((value, i) => {
    const target = fill(path, value);
    const query = (n: number) => {
      const q = QUERIES[n % QUERIES.length];
      return q ? `${target}?${q}` : target;
    };
    if (method === 'GET' || method === 'DELETE')
      for (let n = 0; n < QUERIES.length; n++) list.push({ method, url: query(n), token });
    if (method === 'GET') return;
    // Every body at the real path; one body (in turn) at each hostile path value.
    for (const body of value === 'real' ? bodies : [bodies[i % bodies.length]])
      list.push({ method, url: query(i), token, body });
  });
  // Without a token: the first check a request meets, with the bodies that used to crash it.
  const open = fill(path, 'real');
  list.push({ method, url: open, token: null });
  if (method !== 'GET')
    for (const body of bodies.filter((b) => b.encoding || b.name.startsWith('multipart')))
      list.push({ method, url: open, token: null, body });
  return list.map((attempt) => ({ ...attempt, route: path }));
}

interface Outcome {
  status: number;
  type: string;
  error: unknown;
  text: string;
}

/**
 * Pages for a person's browser (sign-in, e-mail confirmation, the public landing, profile, post
 * and hashtag-feed pages, an invite link's page) answer their errors as pages.
 */
const PAGES = [
  '/oauth/authorize',
  '/auth/confirmation',
  '/',
  '/@:username',
  '/@:username/:id',
  '/tags/:file',
  '/invite/:code',
];

/** An error answered right: {"error": "..."}, a page's own error page, or a deleted status's Tombstone. */
function wellFormedError(path: string, outcome: Outcome): boolean {
  if (typeof outcome.error === 'string') return true;
  if (PAGES.includes(path) && outcome.type.startsWith('text/html')) return true;
  return outcome.status === 410 && (JSON.parse(outcome.text) as { type?: string }).type === 'Tombstone';
}

async function send({ method, url, token: bearer, body }: Attempt): Promise<Outcome> {
  const headers: Record<string, string> = {};
  if (bearer) headers.authorization = `Bearer ${bearer}`;
  if (body?.type) headers['content-type'] = body.type;
  if (body?.encoding) headers['content-encoding'] = body.encoding;
  const res = await fetch(h.url + url, {
    method,
    headers,
    body: body?.data,
    redirect: 'manual',
    signal: AbortSignal.timeout(15_000),
  });
  const type = res.headers.get('content-type') ?? '';
  if (type.startsWith('text/event-stream')) {
    await res.body?.cancel();
    return { status: res.status, type, error: undefined, text: '(stream)' };
  }
  const text = await res.text();
  let error: unknown;
  try {
    error = (JSON.parse(text) as { error?: unknown }).error;
  } catch {
    error = undefined;
  }
  return { status: res.status, type, error, text };
}

/** A few requests at a time: the daemon answers them concurrently, as it would clients. */
async function inParallel<T>(items: T[], width: number, run: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) await run(items[next++]);
    }),
  );
}

test('the route table covers every route the scope walk knows', () => {
  const mounted = new Set(table.map(({ method, path }) => `${method} ${path.replace(PARAM, ':p')}`));
  for (const [method, path] of ROUTES) {
    const bare = path
      .split('?')[0]
      .replace(/\/1(?=\/|$)/g, '/:p')
      .replace(/\/(nestbox|ungrouped-1|blobcat)(?=\/|$)/g, '/:p');
    assert.ok(mounted.has(`${method} ${bare}`), `${method} ${bare} is in the route table`);
  }
  for (const prefix of ['/api/nestbox/v1/', '/setup/api/', '/oauth/', '/.well-known/', '/users/:username', '/inbox']) {
    assert.ok(
      table.some(({ path }) => path.startsWith(prefix)),
      `routes under ${prefix}`,
    );
  }
});

test('no route answers 5xx to hostile input; every error is {"error": "..."}', async () => {
  const all = table.flatMap(({ method, path }) => attempts(method, path));
  const failures: string[] = [];
  let fiveHundreds = 0;
  await inParallel(all, 4, async (attempt) => {
    const where = `${attempt.method} ${attempt.url} ${attempt.token ? 'token' : 'no token'} ${attempt.body?.name ?? 'no body'}`;
    let outcome: Outcome;
    try {
      outcome = await send(attempt);
    } catch (error) {
      failures.push(`${where}: no answer (${(error as Error).message})`);
      return;
    }
    if (outcome.status >= 500) fiveHundreds++;
    if (outcome.status >= 500) failures.push(`${where}: ${outcome.status} ${outcome.text.slice(0, 200)}`);
    else if (outcome.status >= 400 && !wellFormedError(attempt.route, outcome))
      failures.push(`${where}: ${outcome.status} without {"error"}: ${outcome.text.slice(0, 120)}`);
  });
  console.log(
    `hostile-input sweep: ${table.length} routes, ${all.length} requests, ${fiveHundreds} answered 5xx, ${failures.length} failures`,
  );
  assert.ok(all.length > 5000, `${all.length} requests`);
  assert.equal(failures.slice(0, 30), [], `${failures.length} failures`);
  assert.is((await h.daemon.json('/healthz')).status, 200, 'and the daemon is still well');
  const errors = h.daemon.logs
    .filter((line) => line.level === 'error')
    .map((line) => JSON.stringify(line).slice(0, 300));
  assert.equal(errors, [], 'nothing logged as a fault');
});

test.run();
