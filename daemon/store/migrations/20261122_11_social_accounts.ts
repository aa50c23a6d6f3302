import type { Migration } from './index.js';

/**
 * Accounts (local and, later, remote: `domain` null means local), the local users behind them,
 * OAuth applications, authorization codes and hashed access tokens, and registration invites.
 * Snowflake ids are INTEGER primary keys; they are always read back with CAST(… AS TEXT).
 */
export const m20261122_11_social_accounts: Migration = {
  name: '20261122_11_social_accounts',
  async up(db) {
    await db.raw(`CREATE TABLE accounts (
      id INTEGER PRIMARY KEY,
      username TEXT NOT NULL,
      domain TEXT,
      display_name TEXT NOT NULL DEFAULT '',
      note TEXT NOT NULL DEFAULT '',
      note_source TEXT NOT NULL DEFAULT '',
      locked INTEGER NOT NULL DEFAULT 0,
      bot INTEGER NOT NULL DEFAULT 0,
      discoverable INTEGER NOT NULL DEFAULT 1,
      fields TEXT NOT NULL DEFAULT '[]',
      avatar TEXT,
      avatar_static TEXT,
      header TEXT,
      header_static TEXT,
      uri TEXT NOT NULL,
      url TEXT,
      inbox_url TEXT,
      outbox_url TEXT,
      shared_inbox_url TEXT,
      followers_url TEXT,
      public_key TEXT,
      private_key TEXT,
      silenced_at TEXT,
      suspended_at TEXT,
      followers_count INTEGER NOT NULL DEFAULT 0,
      following_count INTEGER NOT NULL DEFAULT 0,
      statuses_count INTEGER NOT NULL DEFAULT 0,
      last_status_at TEXT,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    )`);
    await db.raw(
      `CREATE UNIQUE INDEX accounts_username_domain ON accounts (lower(username), coalesce(lower(domain), ''))`,
    );
    await db.raw(`CREATE UNIQUE INDEX accounts_uri ON accounts (uri)`);

    await db.raw(`CREATE TABLE users (
      account_id INTEGER PRIMARY KEY REFERENCES accounts(id) ON DELETE CASCADE,
      email TEXT NOT NULL,
      password_hash TEXT NOT NULL,
      role TEXT NOT NULL DEFAULT 'user',
      approved INTEGER NOT NULL DEFAULT 1,
      disabled INTEGER NOT NULL DEFAULT 0,
      reason TEXT,
      invite_id INTEGER,
      created_by_app_id INTEGER,
      default_privacy TEXT NOT NULL DEFAULT 'public',
      default_sensitive INTEGER NOT NULL DEFAULT 0,
      default_language TEXT,
      locale TEXT NOT NULL DEFAULT 'en',
      created_at TEXT NOT NULL
    )`);
    await db.raw(`CREATE UNIQUE INDEX users_email ON users (lower(email))`);

    await db.raw(`CREATE TABLE oauth_apps (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      name TEXT NOT NULL,
      website TEXT,
      redirect_uri TEXT NOT NULL,
      scopes TEXT NOT NULL,
      client_id TEXT NOT NULL UNIQUE,
      client_secret TEXT NOT NULL,
      owner_account_id INTEGER REFERENCES accounts(id) ON DELETE CASCADE,
      created_at TEXT NOT NULL
    )`);

    await db.raw(`CREATE TABLE oauth_codes (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      code_hash TEXT NOT NULL UNIQUE,
      app_id INTEGER NOT NULL REFERENCES oauth_apps(id) ON DELETE CASCADE,
      account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      redirect_uri TEXT NOT NULL,
      scopes TEXT NOT NULL,
      code_challenge TEXT,
      code_challenge_method TEXT,
      expires_at TEXT NOT NULL,
      used_at TEXT,
      created_at TEXT NOT NULL
    )`);

    await db.raw(`CREATE TABLE oauth_tokens (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      token_hash TEXT NOT NULL UNIQUE,
      app_id INTEGER REFERENCES oauth_apps(id) ON DELETE CASCADE,
      account_id INTEGER REFERENCES accounts(id) ON DELETE CASCADE,
      scopes TEXT NOT NULL,
      created_at TEXT NOT NULL,
      revoked_at TEXT
    )`);
    await db.raw(`CREATE INDEX oauth_tokens_account ON oauth_tokens (account_id)`);

    await db.raw(`CREATE TABLE invites (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      code TEXT NOT NULL UNIQUE,
      account_id INTEGER REFERENCES accounts(id) ON DELETE CASCADE,
      max_uses INTEGER,
      uses INTEGER NOT NULL DEFAULT 0,
      expires_at TEXT,
      created_at TEXT NOT NULL
    )`);
  },
};
