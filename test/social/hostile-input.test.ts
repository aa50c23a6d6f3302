/**
 * Every route the daemon mounts (read from its own route table: the Mastodon API, the appliance
 * API, the setup portal, OAuth, well-known documents, ActivityPub actors, collections and inboxes)
 * against hostile input: odd path values, hostile query strings, bodies of the wrong types, huge
 * and negative numbers, NUL and control characters, invalid UTF-8, lying Content-Encodings and
 * oversize bodies, with the owner's all-scopes token and without a token. Nothing may answer 5xx
 * or leave a request unanswered, and every error is a JSON {"error": "..."}.
 */
import { Agent, request } from 'node:http';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startSocialDaemon, type SocialHarness } from '../helpers/social.js';
import { ROUTES } from '../helpers/social-routes.js';
import { hostileBodies, PATH_VALUES, QUERIES, type HostileBody } from '../helpers/hostile-values.js';

let h: SocialHarness;
let token: string;
let statusId: string;
let table: Array<{ method: string; path: string }>;
/** Built once: the sweep sends the same bodies to every route. */
let bodies: SentBody[];

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
  bodies = await Promise.all(hostileBodies().map(encode));
});
test.after(async () => {
  agent.destroy();
  await h?.stop();
});

/** A hostile body as bytes on the wire, with the Content-Type fetch would give a form (its boundary). */
interface SentBody extends HostileBody {
  data: string | Buffer;
}

async function encode(body: HostileBody): Promise<SentBody> {
  if (typeof body.data === 'string' || Buffer.isBuffer(body.data)) return { ...body, data: body.data };
  const wire = new Response(body.data);
  const type = wire.headers.get('content-type') ?? undefined;
  return { ...body, type, data: Buffer.from(await wire.arrayBuffer()) };
}

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
  body?: SentBody;
}

/** Radio actions of the appliance API: they read no body, and each takes seconds of the simulated coprocessor. */
const RADIO_ACTIONS = ['/api/nestbox/v1/scan', '/api/nestbox/v1/restart_coprocessor', '/api/nestbox/v1/setup_mode'];

/** Each route: every hostile path value, hostile queries, and (with a body) every hostile body. */
function attempts(method: string, path: string): Attempt[] {
  const values = /:\w/.test(path) ? ['real', ...PATH_VALUES] : ['real'];
  const sent = RADIO_ACTIONS.includes(path) ? bodies.slice(0, 2) : bodies;
  const list: Array<Omit<Attempt, 'route'>> = [];
  values.forEach((value, i) => {
    const target = fill(path, value);
    const query = (n: number) => {
      const q = QUERIES[n % QUERIES.length];
      return q ? `${target}?${q}` : target;
    };
    // Every query at the real path; one query (in turn) at each hostile path value, as with bodies.
    if (method === 'GET' || method === 'DELETE')
      for (const n of value === 'real' ? QUERIES.keys() : [i]) list.push({ method, url: query(n), token });
    if (method === 'GET') return;
    // Every body at the real path; one body (in turn) at each hostile path value.
    for (const body of value === 'real' ? sent : [sent[i % sent.length]])
      list.push({ method, url: query(i), token, body });
  });
  // Without a token: the first check a request meets, with the bodies that used to crash it.
  const open = fill(path, 'real');
  list.push({ method, url: open, token: null });
  if (method !== 'GET')
    for (const body of sent.filter((b) => b.encoding || b.name.startsWith('multipart')))
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

/** Requests in flight at once. */
const WIDTH = 4;
/**
 * One kept-alive connection per request in flight, as fetch keeps them; node:http rather than
 * fetch, whose per-request stream and signal machinery cost the test more CPU than the daemon's
 * answer did.
 */
const agent = new Agent({ keepAlive: true, maxSockets: WIDTH });

function send({ method, url, token: bearer, body }: Attempt): Promise<Outcome> {
  const headers: Record<string, string | number> = {};
  if (bearer) headers.authorization = `Bearer ${bearer}`;
  if (body?.type) headers['content-type'] = body.type;
  if (body?.encoding) headers['content-encoding'] = body.encoding;
  if (body) headers['content-length'] = Buffer.byteLength(body.data);
  // Parsed as fetch parses it: the same bytes reach the daemon.
  const target = new URL(h.url + url);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: target.hostname, port: target.port, path: target.pathname + target.search, method, headers, agent },
      (res) => {
        const type = res.headers['content-type'] ?? '';
        if (type.startsWith('text/event-stream')) {
          res.destroy();
          resolve({ status: res.statusCode ?? 0, type, error: undefined, text: '(stream)' });
          return;
        }
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('error', reject);
        res.on('end', () => {
          let error: unknown;
          try {
            error = (JSON.parse(text) as { error?: unknown }).error;
          } catch {
            error = undefined;
          }
          resolve({ status: res.statusCode ?? 0, type, error, text });
        });
      },
    );
    req.setTimeout(15_000, () => req.destroy(new Error('no answer in 15 s')));
    // An error after the answer (a refused body cut short) comes too late to change the outcome.
    req.on('error', reject);
    req.end(body?.data);
  });
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
  await inParallel(all, WIDTH, async (attempt) => {
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
