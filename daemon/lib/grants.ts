/**
 * What a bearer token grants: whose it is and its scopes. Shared by HTTP, the streaming server and
 * the setup portal, so it lives outside any one transport. Scopes nest Mastodon's way: a granted
 * parent ("read") covers a child ("read:statuses"); "write" never implies "read".
 */
export interface AuthContext {
  tokenId: string;
  /** null for an app-only token (client_credentials). */
  accountId: string | null;
  appId: string | null;
  scopes: ReadonlySet<string>;
  /** The box owner's account: the role that may hold admin scopes. */
  owner: boolean;
  /** A user whose e-mail confirmation is still demanded: refused except where a route allows it. */
  unconfirmed?: boolean;
}

export type TokenResolver = (token: string) => Promise<AuthContext | null>;

/** Whether `granted` covers `accepted`: the scope itself or any parent of it. */
export function scopeAllows(granted: ReadonlySet<string>, accepted: string): boolean {
  if (granted.has(accepted)) return true;
  const parent = accepted.includes(':') ? accepted.slice(0, accepted.lastIndexOf(':')) : null;
  return parent !== null && scopeAllows(granted, parent);
}
