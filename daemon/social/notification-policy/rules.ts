/**
 * Whether a notification is stored, filtered or dropped: Mastodon's NotifyService conditions.
 * Dropped outright: from self (but for a poll's end), from a blocked, notification-muted or
 * domain-blocked (and not followed) sender, about a muted conversation. Then the recipient's
 * policy, for the filterable types only, unless the sender was accepted before: each of its five
 * conditions may drop or filter.
 */
export type PolicyChoice = 'accept' | 'filter' | 'drop';
export type Verdict = PolicyChoice;

export const POLICY_FIELDS = [
  'for_not_following',
  'for_not_followers',
  'for_new_accounts',
  'for_private_mentions',
  'for_limited_accounts',
] as const;
export type PolicyField = (typeof POLICY_FIELDS)[number];
export type Policy = Record<PolicyField, PolicyChoice>;

/** Mastodon's defaults: private mentions from strangers and limited accounts are filtered. */
export const DEFAULT_POLICY: Policy = {
  for_not_following: 'accept',
  for_not_followers: 'accept',
  for_new_accounts: 'accept',
  for_private_mentions: 'filter',
  for_limited_accounts: 'filter',
};

/** Types a policy may hold back (Notification::PROPERTIES filterable). */
export const FILTERABLE_TYPES = new Set(['mention', 'reblog', 'follow', 'follow_request', 'favourite', 'quote']);

const NEW_ACCOUNT_MS = 30 * 86_400_000;
const NEW_FOLLOWER_MS = 3 * 86_400_000;

/** What the rules look at, read in one query. */
export interface SenderFacts {
  self: boolean;
  /** Blocked, notification-muted, domain-blocked and not followed, or the conversation muted. */
  refused: boolean;
  /** The recipient follows the sender. */
  following: boolean;
  /** Since when the sender follows the recipient, if they do. */
  followerSince: string | null;
  senderCreatedAt: string;
  senderLimited: boolean;
  /** The recipient let this sender through before (an accepted request). */
  permitted: boolean;
  /** A local moderator, admin or the owner: their mentions always come through. */
  senderStaff: boolean;
  /** A direct status that does not answer a direct status of the recipient's mentioning the sender. */
  unsolicitedPrivateMention: boolean;
}

export function verdict(type: string, facts: SenderFacts, policy: Policy, now: number): Verdict {
  if (facts.self && type !== 'poll') return 'drop';
  if (facts.refused) return 'drop';
  if (!FILTERABLE_TYPES.has(type) || facts.permitted || (type === 'mention' && facts.senderStaff)) return 'accept';
  const notFollower = facts.followerSince === null || Date.parse(facts.followerSince) > now - NEW_FOLLOWER_MS;
  const newAccount = Date.parse(facts.senderCreatedAt) > now - NEW_ACCOUNT_MS;
  const holds: Record<PolicyField, boolean> = {
    for_limited_accounts: facts.senderLimited && !facts.following,
    for_not_following: !facts.following,
    for_not_followers: notFollower,
    for_new_accounts: newAccount && !facts.following,
    for_private_mentions: !facts.following && facts.unsolicitedPrivateMention,
  };
  const applying = POLICY_FIELDS.filter((field) => holds[field]).map((field) => policy[field]);
  if (applying.includes('drop')) return 'drop';
  return applying.includes('filter') ? 'filter' : 'accept';
}
