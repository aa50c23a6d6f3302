/**
 * Accounts: creating local accounts (admin tool and registration), reading them, and changing
 * one's own profile. Local accounts carry the URIs federation needs and an RSA key pair.
 */
import { generateKeyPair, randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import { localEmojisIn } from '../instance/custom-emojis.js';
import { InvitesRepo } from '../invites/repo.js';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { syncFiles } from '../../storage/durable-files.js';
import { join } from 'node:path';
import { detectImage, staticCopy } from './images.js';
import { notFound, unprocessable, type ErrorDetails, DomainError } from '../../lib/errors.js';
import type { SocialContext } from '../context.js';
import { nowIso } from '../time.js';
import type { Passwords } from './passwords.js';
import { AccountsRepo, type AccountRow, type UserRow } from './repo.js';
import { textToHtml } from '../statuses/html.js';
import { FIELDS_MAX, fieldsToStore, parseStoredFields } from './profile-fields.js';

export const USERNAME_PATTERN = /^[a-z0-9_]+([a-z0-9_.-]+[a-z0-9_]+)?$/i;
const USERNAME_MAX = 30;
export const DISPLAY_NAME_MAX = 30;
const NOTE_MAX = 500;
const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 72;
const PRIVACIES = ['public', 'unlisted', 'private'];

export interface NewLocalAccount {
  username: string;
  email: string;
  password: string;
  owner?: boolean;
  locked?: boolean;
  approved?: boolean;
  reason?: string | null;
  inviteId?: string | null;
  appId?: string | null;
  displayName?: string;
  /** More writes in the same transaction (a throw undoes the account too). */
  within?: (trx: Knex, accountId: string) => Promise<void>;
}

export class AccountsService {
  readonly repo: AccountsRepo;
  private readonly invites: InvitesRepo;

  constructor(
    private readonly ctx: SocialContext,
    private readonly passwords: Passwords,
  ) {
    this.repo = new AccountsRepo(ctx);
    this.invites = new InvitesRepo(ctx);
  }

  adjustCounter(...args: Parameters<AccountsRepo['adjustCounter']>): ReturnType<AccountsRepo['adjustCounter']> {
    return this.repo.adjustCounter(...args);
  }
  byUsername(...args: Parameters<AccountsRepo['byUsername']>): ReturnType<AccountsRepo['byUsername']> {
    return this.repo.byUsername(...args);
  }
  update(...args: Parameters<AccountsRepo['update']>): ReturnType<AccountsRepo['update']> {
    return this.repo.update(...args);
  }
  ownerAccountId(...args: Parameters<AccountsRepo['ownerAccountId']>): ReturnType<AccountsRepo['ownerAccountId']> {
    return this.repo.ownerAccountId(...args);
  }

  // The reads routes answer with, as the repo makes them.
  byId(...args: Parameters<AccountsRepo['byId']>): ReturnType<AccountsRepo['byId']> {
    return this.repo.byId(...args);
  }
  inviteByCode(...args: Parameters<AccountsRepo['inviteByCode']>): ReturnType<AccountsRepo['inviteByCode']> {
    return this.repo.inviteByCode(...args);
  }
  movedTo(...args: Parameters<AccountsRepo['movedTo']>): ReturnType<AccountsRepo['movedTo']> {
    return this.repo.movedTo(...args);
  }

  /** Validates like Mastodon's registration and returns details per field (ERR_BLANK, ERR_TAKEN…). */
  async validateNew(input: { username?: string; email?: string; password?: string }): Promise<ErrorDetails> {
    const details: ErrorDetails = {};
    const add = (field: string, error: string, description: string) => {
      (details[field] ??= []).push({ error, description });
    };
    const username = input.username ?? '';
    if (!username) add('username', 'ERR_BLANK', "can't be blank");
    else if (username.length > USERNAME_MAX)
      add('username', 'ERR_TOO_LONG', `is too long (maximum is ${USERNAME_MAX} characters)`);
    else if (!USERNAME_PATTERN.test(username))
      add('username', 'ERR_INVALID', 'must contain only letters, numbers and underscores');
    else if (await this.repo.byUsername(username, null)) add('username', 'ERR_TAKEN', 'is already taken');
    const email = input.email ?? '';
    if (!email) add('email', 'ERR_BLANK', "can't be blank");
    else if (!/^[^@\s]+@[^@\s]+$/.test(email) || email.length > 320) add('email', 'ERR_INVALID', 'is invalid');
    else if (await this.repo.emailTaken(email)) add('email', 'ERR_TAKEN', 'is already taken');
    const password = input.password ?? '';
    if (!password) add('password', 'ERR_BLANK', "can't be blank");
    else if (password.length < PASSWORD_MIN)
      add('password', 'ERR_TOO_SHORT', `is too short (minimum is ${PASSWORD_MIN} characters)`);
    else if (password.length > PASSWORD_MAX)
      add('password', 'ERR_TOO_LONG', `is too long (maximum is ${PASSWORD_MAX} characters)`);
    return details;
  }

  async createLocal(input: NewLocalAccount): Promise<AccountRow> {
    const details = await this.validateNew(input);
    if (Object.keys(details).length) throw validationFailed(details);
    const id = this.ctx.ids.next();
    const now = nowIso(this.ctx.now());
    const base = this.ctx.config.baseUrl;
    const uri = `${base}/users/${input.username}`;
    const passwordHash = await this.passwords.hash(input.password);
    await this.ctx.db.transaction(async (trx) => {
      await this.repo.insertLocal(
        trx,
        {
          id,
          username: input.username,
          domain: null,
          ...(input.displayName ? { display_name: input.displayName } : {}),
          locked: input.locked ? 1 : 0,
          uri,
          url: `${base}/@${input.username}`,
          inbox_url: `${uri}/inbox`,
          outbox_url: `${uri}/outbox`,
          shared_inbox_url: `${base}/inbox`,
          followers_url: `${uri}/followers`,
          created_at: now,
          updated_at: now,
        },
        {
          account_id: id,
          email: input.email,
          password_hash: passwordHash,
          role: input.owner ? 'owner' : 'user',
          approved: input.approved === false ? 0 : 1,
          reason: input.reason ?? null,
          invite_id: input.inviteId ?? null,
          created_by_app_id: input.appId ?? null,
          created_at: now,
        },
      );
      // Counted only while it still allows a use: of two sign-ups racing for the last one, one wins.
      if (input.inviteId) {
        if (!(await this.invites.use(trx, input.inviteId, now)))
          throw validationFailed({
            invite_code: [{ error: 'ERR_INVALID', description: 'has been used up or has expired' }],
          });
      }
      await input.within?.(trx, id);
    });
    this.ctx.events.emit('account.created', { accountId: id });
    return (await this.repo.byId(id))!;
  }

  /**
   * The account's RSA key pair for HTTP signatures, made on first need (federation) rather than at
   * creation: generating one costs about half a second on this class of machine.
   */
  async ensureKeys(accountId: string): Promise<{ publicKey: string; privateKey: string }> {
    const row = await this.repo.keys(accountId);
    if (!row) throw notFound();
    if (row.public_key && row.private_key) return { publicKey: row.public_key, privateKey: row.private_key };
    const { publicKey, privateKey } = await generateRsaKeys();
    await this.repo.setKeysIfNone(accountId, publicKey, privateKey);
    // Another caller may have stored its pair first: every caller answers with the one kept.
    const stored = (await this.repo.keys(accountId))!;
    return { publicKey: stored.public_key!, privateKey: stored.private_key! };
  }

  /**
   * Stores an uploaded avatar or header (the file at `path`) and its static copy under the media
   * directory; answers the paths to serve. Anything that is not PNG, JPEG, GIF or WebP is 422.
   */
  async storeImage(accountId: string, kind: 'avatar' | 'header', path: string): Promise<StoredImage> {
    const bytes = await readFile(path);
    const type = detectImage(bytes);
    if (!type) {
      throw validationFailed({
        [kind]: [{ error: 'ERR_INVALID', description: 'must be a PNG, JPEG, GIF or WebP image' }],
      });
    }
    const name = `${randomBytes(12).toString('hex')}.${type === 'jpeg' ? 'jpg' : type}`;
    const folder = `${kind}s`;
    const still = staticCopy(type, bytes);
    const base = join(this.ctx.mediaDir, 'accounts', folder, accountId);
    const url = `/system/accounts/${folder}/${accountId}`;
    const stored = { original: `${url}/original/${name}`, static: `${url}/${still ? 'static' : 'original'}/${name}` };
    try {
      await mkdir(join(base, 'original'), { recursive: true });
      const written = [join(base, 'original', name)];
      await writeFile(written[0], bytes);
      if (still) {
        await mkdir(join(base, 'static'), { recursive: true });
        written.push(join(base, 'static', name));
        await writeFile(written[1], still);
      }
      // On the card before the account row names them (the caller stores the paths).
      await syncFiles(written, [base]);
    } catch (error) {
      await this.removeImage(stored.original);
      throw error;
    }
    return stored;
  }

  /** An uploaded profile image for the /system/accounts route; null for anything else. */
  async readImage(
    kind: string,
    accountId: string,
    variant: string,
    file: string,
  ): Promise<{ type: string; bytes: Buffer } | null> {
    if (
      !['avatars', 'headers'].includes(kind) ||
      !/^\d{1,19}$/.test(accountId) ||
      !['original', 'static'].includes(variant)
    )
      return null;
    const match = /^[0-9a-f]{24}\.(png|jpg|gif|webp)$/.exec(file);
    if (!match) return null;
    try {
      const bytes = await readFile(join(this.ctx.mediaDir, 'accounts', kind, accountId, variant, file));
      return { type: match[1] === 'jpg' ? 'image/jpeg' : `image/${match[1]}`, bytes };
    } catch {
      return null;
    }
  }

  /** Removes the files of a replaced image (paths as stored). */
  async removeImage(stored: string | null): Promise<void> {
    const match = stored
      ? /^\/system\/accounts\/(avatars|headers)\/(\d+)\/(original|static)\/([0-9a-f]+\.\w+)$/.exec(stored)
      : null;
    if (!match) return;
    for (const variant of ['original', 'static']) {
      await rm(join(this.ctx.mediaDir, 'accounts', match[1], match[2], variant, match[4]), { force: true });
    }
  }

  async setPassword(accountId: string, password: string): Promise<void> {
    if (password.length < PASSWORD_MIN || password.length > PASSWORD_MAX) {
      throw unprocessable(`Validation failed: Password must have ${PASSWORD_MIN} to ${PASSWORD_MAX} characters`);
    }
    await this.repo.updateUser(accountId, { password_hash: await this.passwords.hash(password) });
  }

  async get(id: string): Promise<AccountRow> {
    const row = await this.repo.byId(id);
    if (!row) throw notFound();
    return row;
  }

  async user(accountId: string): Promise<UserRow> {
    const user = await this.repo.userByAccountId(accountId);
    if (!user) throw notFound();
    return user;
  }

  /** How many follow requests wait for the account's answer (its credential account shows it). */
  followRequestCount(accountId: string): Promise<number> {
    return this.repo.followRequestCount(accountId);
  }

  /** A local account by username, suspended ones included (the public pages answer 410 for them). */
  localByUsername(username: string): Promise<AccountRow | undefined> {
    return this.repo.byUsername(username, null);
  }

  /** `user` or `user@domain` (a leading @ allowed); the local domain counts as local. */
  async lookup(acct: string): Promise<AccountRow> {
    const [username, domain] = acct.replace(/^@/, '').split('@');
    const local = !domain || domain.toLowerCase() === this.ctx.localDomain.toLowerCase();
    const row = username ? await this.repo.byUsername(username, local ? null : domain) : undefined;
    if (!row || row.suspended_at) throw notFound();
    return row;
  }

  search(query: string, limit: number, offset: number): Promise<AccountRow[]> {
    const cleaned = query.trim().replace(/^@/, '');
    const [username, domain] = cleaned.split('@');
    if (!username) return Promise.resolve([]);
    const local = !domain || domain.toLowerCase() === this.ctx.localDomain.toLowerCase();
    return local
      ? this.repo.search(username, limit, offset)
      : this.repo.byUsername(username, domain).then((row) => (row ? [row] : []));
  }

  async updateCredentials(accountId: string, input: UpdateCredentials): Promise<{ unlocked: boolean }> {
    const before = await this.get(accountId);
    const details: ErrorDetails = {};
    const add = (field: string, error: string, description: string) => {
      (details[field] ??= []).push({ error, description });
    };
    const changes: Record<string, unknown> = {};
    const userChanges: Record<string, unknown> = {};
    if (input.display_name !== undefined) {
      if (input.display_name.length > DISPLAY_NAME_MAX)
        add('display_name', 'ERR_TOO_LONG', `is too long (maximum is ${DISPLAY_NAME_MAX} characters)`);
      changes.display_name = input.display_name;
    }
    if (input.note !== undefined) {
      if (input.note.length > NOTE_MAX) add('note', 'ERR_TOO_LONG', `is too long (maximum is ${NOTE_MAX} characters)`);
      changes.note_source = input.note;
      changes.note = textToHtml(input.note);
    }
    if (input.locked !== undefined) changes.locked = input.locked ? 1 : 0;
    if (input.bot !== undefined) changes.bot = input.bot ? 1 : 0;
    if (input.discoverable !== undefined) changes.discoverable = input.discoverable ? 1 : 0;
    if (input.fields !== undefined) {
      if (input.fields.length > FIELDS_MAX)
        add('fields', 'ERR_TOO_LONG', `is too long (maximum is ${FIELDS_MAX} fields)`);
      changes.fields = fieldsToStore(input.fields, parseStoredFields(before.fields));
    }
    for (const image of ['avatar', 'header'] as const) {
      const file = input[image];
      if (file !== undefined) {
        changes[image] = file?.original ?? null;
        changes[`${image}_static`] = file?.static ?? null;
      }
    }
    if (input.privacy !== undefined) {
      if (!PRIVACIES.includes(input.privacy)) add('source.privacy', 'ERR_INCLUSION', 'is not included in the list');
      userChanges.default_privacy = input.privacy;
    }
    if (input.sensitive !== undefined) userChanges.default_sensitive = input.sensitive ? 1 : 0;
    if (input.language !== undefined) userChanges.default_language = input.language || null;
    if (Object.keys(details).length) throw validationFailed(details);
    if (input.display_name !== undefined || input.note !== undefined || input.fields !== undefined) {
      changes.emojis = await localEmojisIn(
        this.ctx,
        (changes.display_name ?? before.display_name) as string,
        (changes.note_source ?? before.note_source ?? '') as string,
        (changes.fields ?? before.fields ?? '') as string,
      );
    }
    await this.ctx.db.transaction(async (trx) => {
      if (Object.keys(changes).length)
        await this.repo.update(accountId, { ...changes, updated_at: nowIso(this.ctx.now()) }, trx);
      if (Object.keys(userChanges).length) await this.repo.updateUser(accountId, userChanges, trx);
    });
    // Replaced images go once the row no longer points at them.
    for (const image of ['avatar', 'header'] as const) {
      if (input[image] !== undefined && before[image] !== changes[image]) await this.removeImage(before[image]);
    }
    this.ctx.events.emit('account.updated', { accountId });
    return { unlocked: Boolean(before.locked) && input.locked === false };
  }

  /**
   * Stores the outcome of checking the link fields of `checkedFields` (the fields as they were
   * read): each field whose value is in `verifiedAt` takes that time (or null, not verified). A
   * newer edit made meanwhile wins and is checked on its own; true when stored.
   */
  async recordLinkChecks(
    accountId: string,
    checkedFields: string,
    verifiedAt: Map<string, string | null>,
  ): Promise<boolean> {
    const fields = parseStoredFields(checkedFields).map((field) =>
      verifiedAt.has(field.value) ? { ...field, verified_at: verifiedAt.get(field.value) ?? null } : field,
    );
    const next = JSON.stringify(fields);
    if (next === checkedFields) return false;
    return this.repo.replaceFieldsIfUnchanged(accountId, checkedFields, next);
  }
}

export interface StoredImage {
  original: string;
  static: string;
}

export interface UpdateCredentials {
  display_name?: string;
  note?: string;
  locked?: boolean;
  bot?: boolean;
  discoverable?: boolean;
  fields?: Array<{ name: string; value: string }>;
  avatar?: StoredImage | null;
  header?: StoredImage | null;
  privacy?: string;
  sensitive?: boolean;
  language?: string;
}

export function validationFailed(details: ErrorDetails): DomainError {
  const summary = Object.entries(details)
    .map(
      ([field, errors]) =>
        `${field.charAt(0).toUpperCase()}${field.slice(1).replace(/_/g, ' ')} ${errors.map((e) => e.description).join(', ')}`,
    )
    .join(', ');
  return unprocessable(`Validation failed: ${summary}`, details);
}

export function generateRsaKeys(): Promise<{ publicKey: string; privateKey: string }> {
  return new Promise((resolve, reject) => {
    generateKeyPair(
      'rsa',
      {
        modulusLength: 2048,
        publicKeyEncoding: { type: 'spki', format: 'pem' },
        privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
      },
      (error, publicKey, privateKey) => (error ? reject(error) : resolve({ publicKey, privateKey })),
    );
  });
}
