/**
 * The box's own dashboard is a first-party app: its owner signs in without a consent step. It is
 * told apart by where the code goes, which no other app can receive: the one redirect URI the app
 * registered is the dashboard's own page, on the origin the sign-in page was asked on (the name or
 * address the owner typed) or on the instance's base URL; and the request carries PKCE (S256) and
 * a state, which the dashboard checks. Any other app, or a request without them, gets the consent
 * page, so the scopes an app asks for are always shown to the person who grants them elsewhere.
 */
import type { AppRow } from './repo.js';

export const DASHBOARD_REDIRECT_PATH = '/dashboard/';

export interface AuthorizationAsked {
  app: AppRow;
  redirectUri: string;
  state?: string;
  code_challenge?: string;
  code_challenge_method?: string;
}

/** `origin`: the scheme, host and port the authorization page was requested on. */
export function isOwnDashboard(asked: AuthorizationAsked, origin: string, baseUrl: string): boolean {
  const own = [origin, baseUrl].map((base) => `${base.replace(/\/+$/, '')}${DASHBOARD_REDIRECT_PATH}`);
  return (
    asked.app.redirect_uri === asked.redirectUri &&
    own.includes(asked.redirectUri) &&
    Boolean(asked.state) &&
    Boolean(asked.code_challenge) &&
    asked.code_challenge_method === 'S256'
  );
}
