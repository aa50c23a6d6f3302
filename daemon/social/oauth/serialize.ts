/** Application JSON: the public shape and the one with client credentials (at registration). */
import type { AppRow } from './repo.js';

export function serializeApp(app: AppRow) {
  const redirectUris = app.redirect_uri.split('\n');
  return {
    id: app.id,
    name: app.name,
    website: app.website || null,
    scopes: app.scopes.split(' '),
    redirect_uris: redirectUris,
    redirect_uri: app.redirect_uri,
    vapid_key: '',
  };
}

export function serializeCredentialApp(app: AppRow) {
  return {
    ...serializeApp(app),
    client_id: app.client_id,
    client_secret: app.client_secret,
    client_secret_expires_at: 0,
  };
}
