/**
 * Invites, as Mastodon has them: the owner makes a link with an expiry and a number of uses;
 * whoever opens it may sign up even while registrations are closed, and is approved at once.
 * An invite is usable while it has uses left and has not expired; a use is counted in the same
 * transaction as the account it lets in (accounts/service.ts), so two people racing for the last
 * use cannot both get it.
 */
import { randomInt } from 'node:crypto';
import { notFound, unprocessable } from '../../lib/errors.js';
import { nowIso } from '../time.js';
import { isValidId } from '../../store/ids.js';
import type { InvitedAccount, InviteRow, InvitesRepo } from './repo.js';

/** Mastodon's choices for an invite's lifetime (seconds) and uses. */
export const EXPIRY_CHOICES = [1800, 3600, 21600, 43200, 86400, 604800] as const;
export const MAX_USES_CHOICES = [1, 5, 10, 25, 50, 100] as const;
const CODE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnpqrstuvwxyz23456789';
const CODE_LENGTH = 10;

export type InviteState = 'usable' | 'expired' | 'used_up';

export type { InviteRow, InvitedAccount } from './repo.js';

export class InvitesService {
  constructor(
    private readonly repo: InvitesRepo,
    private readonly now: () => number,
  ) {}

  state(invite: Pick<InviteRow, 'max_uses' | 'uses' | 'expires_at'>): InviteState {
    return inviteState(invite, this.now());
  }

  /** Makes an invite owned by `accountId`; `expiresInS`/`maxUses` null mean never/unlimited. */
  async create(accountId: string, input: { expiresInS: unknown; maxUses: unknown }): Promise<InviteRow> {
    const expiresInS = input.expiresInS ?? null;
    const maxUses = input.maxUses ?? null;
    const details: Record<string, Array<{ error: string; description: string }>> = {};
    if (expiresInS !== null && !EXPIRY_CHOICES.includes(Number(expiresInS) as (typeof EXPIRY_CHOICES)[number]))
      details.expires_in = [
        { error: 'ERR_INCLUSION', description: `is not one of ${EXPIRY_CHOICES.join(', ')} or null` },
      ];
    if (maxUses !== null && !MAX_USES_CHOICES.includes(Number(maxUses) as (typeof MAX_USES_CHOICES)[number]))
      details.max_uses = [
        { error: 'ERR_INCLUSION', description: `is not one of ${MAX_USES_CHOICES.join(', ')} or null` },
      ];
    if (Object.keys(details).length)
      throw unprocessable(`Validation failed: ${Object.keys(details).join(', ')} not allowed`, details);
    const now = this.now();
    const code = Array.from({ length: CODE_LENGTH }, () => CODE_ALPHABET[randomInt(CODE_ALPHABET.length)]).join('');
    const id = await this.repo.insert({
      code,
      accountId,
      maxUses: maxUses === null ? null : Number(maxUses),
      expiresAt: expiresInS === null ? null : nowIso(now + Number(expiresInS) * 1000),
      createdAt: nowIso(now),
    });
    return (await this.repo.byId(id))!;
  }

  list(): Promise<InviteRow[]> {
    return this.repo.list();
  }

  byCode(code: string): Promise<InviteRow | undefined> {
    return this.repo.byCode(code);
  }

  /** Ends an invite now (Mastodon's "expire"): links already shared stop working. */
  async expire(id: string): Promise<InviteRow> {
    if (!isValidId(id) || !(await this.repo.setExpiresAt(id, nowIso(this.now())))) throw notFound();
    return (await this.repo.byId(id))!;
  }

  /** The local accounts that came in through an invite, newest first. */
  invitedAccounts(): Promise<InvitedAccount[]> {
    return this.repo.invitedAccounts();
  }
}

export function inviteState(invite: Pick<InviteRow, 'max_uses' | 'uses' | 'expires_at'>, now: number): InviteState {
  if (invite.expires_at && Date.parse(invite.expires_at) <= now) return 'expired';
  if (invite.max_uses !== null && invite.uses >= invite.max_uses) return 'used_up';
  return 'usable';
}

/** Why an invite cannot be used, for the person holding the link. */
export function inviteRefusal(state: InviteState | 'unknown'): string {
  switch (state) {
    case 'expired':
      return 'This invite link has expired. Ask whoever sent it for a new one.';
    case 'used_up':
      return 'This invite link has been used as many times as it allows. Ask whoever sent it for a new one.';
    default:
      return 'There is no such invite on this server. Check the link, or ask whoever sent it for a new one.';
  }
}
