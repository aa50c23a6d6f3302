/**
 * The scope names Mastodon 4.5 knows. Each route lists the scopes it accepts (the parent or the
 * child, see daemon/lib/grants.ts); `write` never implies `read`; admin scopes are the owner's only.
 */
const RESOURCES_READ = [
  'accounts',
  'blocks',
  'bookmarks',
  'favourites',
  'filters',
  'follows',
  'lists',
  'mutes',
  'notifications',
  'search',
  'statuses',
];
const RESOURCES_WRITE = [
  'accounts',
  'blocks',
  'bookmarks',
  'conversations',
  'favourites',
  'filters',
  'follows',
  'lists',
  'media',
  'mutes',
  'notifications',
  'reports',
  'statuses',
];
const ADMIN_RESOURCES = [
  'accounts',
  'reports',
  'domain_allows',
  'domain_blocks',
  'ip_blocks',
  'email_domain_blocks',
  'canonical_email_blocks',
];

export const KNOWN_SCOPES: readonly string[] = [
  'read',
  ...RESOURCES_READ.map((r) => `read:${r}`),
  'write',
  ...RESOURCES_WRITE.map((r) => `write:${r}`),
  'follow',
  'push',
  'profile',
  'admin:read',
  ...ADMIN_RESOURCES.map((r) => `admin:read:${r}`),
  'admin:write',
  ...ADMIN_RESOURCES.map((r) => `admin:write:${r}`),
];

const KNOWN = new Set(KNOWN_SCOPES);

export const DEFAULT_SCOPES = 'read';

/** Space-separated scopes → unique list; unknown names are returned in `unknown`. */
export function parseScopes(text: string | undefined | null): { scopes: string[]; unknown: string[] } {
  const names = [...new Set((text ?? '').split(/\s+/).filter(Boolean))];
  return { scopes: names.filter((name) => KNOWN.has(name)), unknown: names.filter((name) => !KNOWN.has(name)) };
}

export function isAdminScope(scope: string): boolean {
  return scope === 'admin' || scope.startsWith('admin:');
}

/** Accepted-scope lists for routes, Mastodon's way: the parent, the child, and `follow` where it applies. */
export const read = (resource: string): string[] => [
  'read',
  `read:${resource}`,
  ...(['blocks', 'follows', 'mutes'].includes(resource) ? ['follow'] : []),
];
export const write = (resource: string): string[] => [
  'write',
  `write:${resource}`,
  ...(['blocks', 'follows', 'mutes'].includes(resource) ? ['follow'] : []),
];
