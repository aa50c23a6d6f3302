/**
 * A running daemon for the social tests, plus the admin tool on its database (accounts and
 * tokens are made the way `npm run admin` makes them) and a small JSON client.
 */
import { loadConfig } from '../../daemon/config.js';
import type { AdminTool } from '../../daemon/social/admin.js';
import { loadAdminTool, openAdminTool } from './admin-tool.js';
import { startDaemon, type RunningDaemon } from './daemon.js';
import { databaseUrlOf } from './daemon-database.js';
import { send, type AnswerHeaders } from './http-client.js';

export interface ApiResponse<T = any> {
  status: number;
  body: T;
  headers: AnswerHeaders;
}

export interface TestAccount {
  id: string;
  username: string;
  token: string;
}

export interface SocialHarness {
  daemon: RunningDaemon;
  admin: AdminTool;
  url: string;
  /** Creates an account and a token with `scopes` (default: everything but admin). */
  account(username: string, options?: { owner?: boolean; locked?: boolean; scopes?: string }): Promise<TestAccount>;
  token(username: string, scopes: string): Promise<string>;
  /** An app's own token (client credentials), as an app holds before anyone signs up. */
  clientToken(scopes?: string): Promise<string>;
  api<T = any>(token: string | null, method: string, path: string, body?: unknown): Promise<ApiResponse<T>>;
  /**
   * A read after a write by another process (the admin tool, `admin.social.ctx.db`): on SQLite the
   * first read must show it (the daemon reads the data version per request); on PostgreSQL the
   * daemon's caches hear of it when the server's announcement arrives, a moment after the commit,
   * so `read` runs again until `shows` holds (up to 5 s). Returns the last value read.
   */
  heard<T>(read: () => Promise<T>, shows: (value: T) => boolean): Promise<T>;
  stop(): Promise<void>;
}

export const ALL_USER_SCOPES = 'read write follow push profile';

/**
 * A test that does not set the simulated coprocessor's pace does not look at the device side: its
 * simulator runs fast and answers the firmware probe (the documented firmware's silence takes 2 s),
 * so that no coprocessor step is still in flight, holding up the daemon's stop, when a short test ends.
 */
function quickCoprocessor(env: Record<string, string>): Record<string, string> {
  if ('NESTBOX_COPROC_TIME_SCALE' in env) return {};
  return { NESTBOX_SIM_FIRMWARE: 'current', NESTBOX_COPROC_TIME_SCALE: '50' };
}

export async function startSocialDaemon(
  env: Record<string, string> = {},
  options: { port?: number; dataDir?: string; keepDataDir?: boolean } = {},
): Promise<SocialHarness> {
  const adminTool = loadAdminTool();
  adminTool.catch(() => undefined); // awaited below, after the daemon started
  const daemon = await startDaemon({
    env: { NESTBOX_LOG_LEVEL: 'info', ...quickCoprocessor(env), ...env },
    ...options,
  });
  // The daemon's database, with the base URL it stored (which a test may have set apart from its address).
  const databaseUrl = env.NESTBOX_DATABASE_URL ?? databaseUrlOf(daemon.dataDir);
  const config = loadConfig({
    env: { NESTBOX_DATA_DIR: daemon.dataDir, ...(databaseUrl && { NESTBOX_DATABASE_URL: databaseUrl }) },
  });
  const admin = await openAdminTool(adminTool, config);
  const harness: SocialHarness = {
    daemon,
    admin,
    url: daemon.url,
    async account(username, options = {}) {
      const { id } = await admin.createAccount({
        username,
        email: `${username}@example.test`,
        password: `pw-${username}-123`,
        owner: options.owner,
        locked: options.locked,
      });
      const token = (await admin.token({ username, scopes: options.scopes ?? ALL_USER_SCOPES })).accessToken;
      return { id, username, token };
    },
    async token(username, scopes) {
      return (await admin.token({ username, scopes })).accessToken;
    },
    async clientToken(scopes = 'read write') {
      const app = (
        await harness.api(null, 'POST', '/api/v1/apps', {
          client_name: 'test app',
          redirect_uris: 'urn:ietf:wg:oauth:2.0:oob',
          scopes,
        })
      ).body;
      const answer = await harness.api(null, 'POST', '/oauth/token', {
        grant_type: 'client_credentials',
        client_id: app.client_id,
        client_secret: app.client_secret,
        scope: scopes,
      });
      return answer.body.access_token as string;
    },
    async api(token, method, path, body) {
      const headers: Record<string, string> = {};
      if (token) headers.authorization = `Bearer ${token}`;
      let payload: string | undefined;
      if (body !== undefined) {
        headers['content-type'] = 'application/json';
        payload = typeof body === 'string' ? body : JSON.stringify(body);
      }
      const response = await send(daemon.url + path, { method, headers, body: payload });
      const text = response.text;
      let parsed: any = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        /* keep text */
      }
      return { status: response.status, body: parsed, headers: response.headers };
    },
    async heard(read, shows) {
      const deadline = Date.now() + (databaseUrl ? 5000 : 0);
      for (;;) {
        const value = await read();
        if (shows(value) || Date.now() >= deadline) return value;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    async stop() {
      await admin.close();
      await daemon.stop();
    },
  };
  return harness;
}
