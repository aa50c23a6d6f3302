/**
 * The instance's identity as the owner names it on the dashboard: title, short description,
 * language and contact account, kept in the settings (the public address is the stored base URL,
 * store/base-url.ts). The instance records and the public pages read it on every answer, so a
 * change shows at once; until the owner sets them, the defaults and the owner's account stand.
 */
import { unprocessable, type ErrorDetails } from '../../lib/errors.js';
import { getSetting, setSetting } from '../../store/settings.js';
import type { SocialContext } from '../context.js';
import type { InstanceRepo } from './repo.js';
import { LANGUAGES } from './languages.js';

export const DEFAULT_TITLE = 'Nestbox';
export const DEFAULT_DESCRIPTION = 'A Mastodon-compatible home instance on a Nestbox appliance.';
const TITLE_MAX = 60;
const DESCRIPTION_MAX = 500;

const KEYS = {
  title: 'instance.title',
  short_description: 'instance.short_description',
  language: 'instance.language',
  contact_username: 'instance.contact_username',
} as const;

export interface Identity {
  title: string;
  short_description: string;
  /** ISO 639-1. */
  language: string;
  /** A local account's username, or null: the owner's account is the contact then. */
  contact_username: string | null;
}

export type IdentityChange = Partial<Record<keyof Identity, unknown>>;

export class InstanceIdentity {
  constructor(
    private readonly ctx: SocialContext,
    private readonly repo: InstanceRepo,
  ) {}

  async get(): Promise<Identity> {
    const [title, description, language, contact] = await Promise.all(
      Object.values(KEYS).map((key) => getSetting(this.ctx.db, key)),
    );
    return {
      title: title ?? DEFAULT_TITLE,
      short_description: description ?? DEFAULT_DESCRIPTION,
      language: language ?? 'en',
      contact_username: contact || null,
    };
  }

  /** Checks every field given, then stores them together; 422 naming each bad field. */
  async update(change: IdentityChange): Promise<Identity> {
    const details: ErrorDetails = {};
    const add = (field: string, error: string, description: string) =>
      (details[field] ??= []).push({ error, description });
    const values: Array<[string, string]> = [];
    const text = (field: keyof typeof KEYS, max: number, blankAllowed: boolean) => {
      const value = change[field];
      if (value === undefined) return;
      if (typeof value !== 'string') return add(field, 'ERR_INVALID', 'must be text');
      const trimmed = value.trim();
      if (!trimmed && !blankAllowed) return add(field, 'ERR_BLANK', "can't be blank");
      if (trimmed.length > max) return add(field, 'ERR_TOO_LONG', `is too long (maximum is ${max} characters)`);
      values.push([KEYS[field], trimmed]);
    };
    text('title', TITLE_MAX, false);
    text('short_description', DESCRIPTION_MAX, true);
    if (change.language !== undefined) {
      if (typeof change.language !== 'string' || !LANGUAGES.some(([code]) => code === change.language))
        add('language', 'ERR_INVALID', 'is not a known language code (ISO 639-1, such as en or de)');
      else values.push([KEYS.language, change.language]);
    }
    if (change.contact_username !== undefined) {
      const username = typeof change.contact_username === 'string' ? change.contact_username.trim() : null;
      if (username && (await this.repo.localAccountId(username)) === undefined)
        add('contact_username', 'ERR_INVALID', 'is not an account of this instance');
      else values.push([KEYS.contact_username, username ?? '']);
    }
    if (Object.keys(details).length) {
      const summary = Object.entries(details)
        .map(([field, errors]) => `${field} ${errors.map((e) => e.description).join(', ')}`)
        .join('; ');
      throw unprocessable(`Validation failed: ${summary}`, details);
    }
    await this.ctx.db.transaction(async (trx) => {
      for (const [key, value] of values) await setSetting(trx, key, value);
    });
    return this.get();
  }
}
