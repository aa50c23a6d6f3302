/** Notification types of Mastodon 4.5, which of them group, and the parameter filters over them. */
export const NOTIFICATION_TYPES = [
  'mention',
  'status',
  'reblog',
  'follow',
  'follow_request',
  'favourite',
  'poll',
  'update',
  'severed_relationships',
  'moderation_warning',
  'annual_report',
  'admin.sign_up',
  'admin.report',
  'quote',
  'quoted_update',
] as const;
export type NotificationType = (typeof NOTIFICATION_TYPES)[number];

export const GROUPABLE_TYPES: readonly NotificationType[] = ['favourite', 'reblog', 'follow', 'admin.sign_up'];

/** Types whose notification carries the target status. */
export const STATUS_TYPES = new Set<string>([
  'favourite',
  'reblog',
  'status',
  'mention',
  'poll',
  'update',
  'quote',
  'quoted_update',
]);

const KNOWN = new Set<string>(NOTIFICATION_TYPES);

/** `types[]` ∩ known (all when absent), minus `exclude_types[]`; null means "every type". */
export function selectTypes(types: string[] | undefined, exclude: string[] | undefined): string[] | null {
  let set: string[] =
    types && types.length ? NOTIFICATION_TYPES.filter((type) => types.includes(type)) : [...NOTIFICATION_TYPES];
  if (exclude?.length) set = set.filter((type) => !exclude.includes(type));
  return set.length === NOTIFICATION_TYPES.length ? null : set;
}

/** `grouped_types[]` ∩ groupable; every groupable type when absent. */
export function selectGroupedTypes(grouped: string[] | undefined): string[] {
  if (grouped === undefined) return [...GROUPABLE_TYPES];
  return GROUPABLE_TYPES.filter((type) => grouped.includes(type));
}

/** Literal SQL list of whitelisted names (never user text: only known type names reach here). */
export function sqlList(names: readonly string[]): string {
  return names
    .map((name) => {
      if (!KNOWN.has(name)) throw new Error(`not a notification type: ${name}`);
      return `'${name}'`;
    })
    .join(', ');
}
