/** Mastodon's Admin::Account: the account with its sign-up, role and moderation state, for the owner. */
import type { StatusRenderer } from '../statuses/serialize.js';
import type { AdminRow } from './repo.js';

export async function renderAdminAccounts(
  renderer: StatusRenderer,
  rows: AdminRow[],
): Promise<Array<Record<string, unknown>>> {
  const accounts = await renderer.accountsById(rows.map((row) => row.id));
  return rows.map((row) => ({
    id: row.id,
    username: row.username,
    domain: row.domain,
    created_at: row.created_at,
    email: row.email,
    ip: row.sign_up_ip,
    ips: [],
    locale: row.locale,
    invite_request: row.reason,
    role: row.role
      ? {
          id: row.role === 'owner' ? '3' : '-99',
          name: row.role === 'owner' ? 'Owner' : '',
          permissions: row.role === 'owner' ? '1' : '0',
          color: '',
          highlighted: row.role === 'owner',
        }
      : null,
    confirmed: row.domain === null ? Boolean(row.confirmed_at) || row.created_by_app_id === null : false,
    approved: row.domain === null ? Boolean(row.approved) : true,
    disabled: Boolean(row.disabled),
    silenced: row.silenced_at !== null,
    suspended: row.suspended_at !== null,
    sensitized: false,
    account: accounts.get(row.id) ?? null,
    created_by_application_id: row.created_by_app_id ?? undefined,
    invited_by_account_id: undefined,
  }));
}
