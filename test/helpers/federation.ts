/**
 * Two (or more) real daemons federating on loopback: each has its own port, data dir and base
 * URL, with NESTBOX_FEDERATION_ALLOW_PRIVATE=true. Plus polling for what arrives asynchronously.
 */
import { startSocialDaemon, type SocialHarness } from './social.js';

export const FEDERATION_ENV = { NESTBOX_FEDERATION_ALLOW_PRIVATE: 'true' };

export function startFederatedDaemon(options: { port?: number; dataDir?: string; keepDataDir?: boolean } = {}): Promise<SocialHarness> {
  return startSocialDaemon(FEDERATION_ENV, options);
}

/** host:port of a daemon: the domain part of its accounts' addresses. */
export function domainOf(harness: SocialHarness): string {
  return new URL(harness.url).host;
}

/** Polls `probe` until it returns a truthy value; fails with `what` after `timeoutMs`. */
export async function eventually<T>(what: string, probe: () => Promise<T | null | undefined | false>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await probe();
      if (value) return value;
    } catch (error) {
      last = error;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`);
}

/** Finds (resolving over ActivityPub) a remote account on `on`, as seen by `token`'s user. */
export async function resolveAccount(on: SocialHarness, token: string, address: string): Promise<any> {
  const found = await on.api(token, 'GET', `/api/v2/search?resolve=true&type=accounts&q=${encodeURIComponent(address)}`);
  if (found.status !== 200 || !found.body.accounts?.[0]) throw new Error(`could not resolve ${address}: ${found.status} ${JSON.stringify(found.body)}`);
  return found.body.accounts[0];
}
