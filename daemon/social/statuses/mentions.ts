/** Mentions in status text: `@user` and `@user@domain` (a port allowed in the domain, for loopback tests). */
import type { AccountRow, AccountsRepo } from '../accounts/repo.js';
import type { RemoteAccountFinder } from './posting-hooks.js';

const MENTION = /(?<![\w/@])@([a-z0-9_]+(?:[a-z0-9_.-]+[a-z0-9_]+)?)(?:@([a-z0-9.-]+[a-z0-9](?::\d{1,5})?))?/gi;

export interface ParsedMention {
  match: string;
  username: string;
  domain: string | null;
}

export function parseMentions(text: string): ParsedMention[] {
  const seen = new Set<string>();
  const out: ParsedMention[] = [];
  for (const match of text.matchAll(MENTION)) {
    const username = match[1];
    const domain = match[2] ?? null;
    const key = `${username.toLowerCase()}@${domain?.toLowerCase() ?? ''}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ match: match[0], username, domain });
  }
  return out;
}

export interface ResolvedMention {
  match: string;
  account: AccountRow;
}

/**
 * The accounts `text` mentions, in its order, once each, suspended ones left out: those known here
 * in one query, a peer's account not known yet through `remote` (WebFinger; null without federation).
 */
export async function resolveMentions(
  text: string,
  localDomain: string,
  accounts: Pick<AccountsRepo, 'byAddresses'>,
  remote: RemoteAccountFinder | null,
): Promise<ResolvedMention[]> {
  const mentions = parseMentions(text).map((mention) => ({
    ...mention,
    domain: !mention.domain || mention.domain.toLowerCase() === localDomain.toLowerCase() ? null : mention.domain,
  }));
  const known = await accounts.byAddresses(mentions);
  const at = (username: string, domain: string | null) =>
    known.find(
      (account) =>
        account.username.toLowerCase() === username.toLowerCase() &&
        (account.domain?.toLowerCase() ?? null) === (domain?.toLowerCase() ?? null),
    );
  const out: ResolvedMention[] = [];
  for (const mention of mentions) {
    const account =
      at(mention.username, mention.domain) ??
      (mention.domain && remote ? await remote.account(mention.username, mention.domain) : undefined);
    if (account && !account.suspended_at && !out.some((m) => m.account.id === account.id))
      out.push({ match: mention.match, account });
  }
  return out;
}
