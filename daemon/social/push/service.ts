/**
 * Web Push subscriptions, one per access token: endpoint and keys checked, alerts per
 * notification type, and the `policy` (all, followed, follower, none) — an unknown policy is 422
 * and nothing is stored.
 */
import { notFound, unprocessable } from '../../lib/errors.js';
import type { SocialContext } from '../context.js';
import { nowIso } from '../time.js';
import { checkUrl, type AddressPolicy } from '../federation/net/address-policy.js';
import type { PushRepo, PushRow } from './repo.js';

export const POLICIES = ['all', 'followed', 'follower', 'none'] as const;
export const ALERT_TYPES = [
  'mention',
  'status',
  'reblog',
  'follow',
  'follow_request',
  'favourite',
  'poll',
  'update',
  'admin.sign_up',
  'admin.report',
  'quote',
  'quoted_update',
] as const;

export interface SubscriptionInput {
  endpoint?: string;
  p256dh?: string;
  auth?: string;
  standard?: boolean;
}
export interface DataInput {
  alerts?: Record<string, unknown>;
  policy?: string;
}

export class PushService {
  constructor(
    private readonly ctx: SocialContext,
    private readonly repo: PushRepo,
  ) {}

  get(tokenId: string): Promise<PushRow | undefined> {
    return this.repo.byToken(tokenId);
  }

  /** Creates or replaces the token's subscription. */
  async subscribe(tokenId: string, accountId: string, sub: SubscriptionInput, data: DataInput): Promise<PushRow> {
    const endpoint = checkEndpoint(sub.endpoint, { allowPrivate: this.ctx.config.federationAllowPrivate });
    const p256dh = checkKey(sub.p256dh, 65, 'p256dh');
    const auth = checkKey(sub.auth, 16, 'auth');
    const policy = checkPolicy(data.policy ?? 'all');
    const alerts = mergeAlerts({}, data.alerts);
    await this.repo.replace({
      tokenId,
      accountId,
      endpoint,
      p256dh,
      auth,
      alerts,
      policy,
      standard: sub.standard ?? false,
      createdAt: nowIso(this.ctx.now()),
    });
    return (await this.get(tokenId))!;
  }

  async update(tokenId: string, data: DataInput): Promise<PushRow> {
    const row = await this.get(tokenId);
    if (!row) throw notFound();
    const policy = data.policy === undefined ? row.policy : checkPolicy(data.policy);
    const alerts = mergeAlerts(JSON.parse(row.alerts) as Record<string, boolean>, data.alerts);
    await this.repo.setAlertsAndPolicy(row.id, alerts, policy);
    return (await this.get(tokenId))!;
  }

  remove(tokenId: string): Promise<void> {
    return this.repo.removeByToken(tokenId);
  }
}

/**
 * A URL the box may POST to: https on a public address (plain http and loopback only with the
 * federation's allowPrivate, for tests). Delivery checks the resolved address again.
 */
function checkEndpoint(value: string | undefined, policy: AddressPolicy): string {
  let url: URL;
  try {
    url = new URL(value ?? '');
  } catch {
    throw unprocessable('Validation failed: Endpoint is not a valid URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw unprocessable('Validation failed: Endpoint is not a valid URL');
  try {
    return checkUrl(policy, url.toString()).toString();
  } catch {
    throw unprocessable('Validation failed: Endpoint must be an https URL on a public address');
  }
}

function checkKey(value: string | undefined, bytes: number, name: string): string {
  const decoded = value ? Buffer.from(value, 'base64url') : Buffer.alloc(0);
  if (decoded.length !== bytes) throw unprocessable(`Validation failed: Keys ${name} is invalid`);
  return value!;
}

function checkPolicy(policy: string): string {
  if (!(POLICIES as readonly string[]).includes(policy))
    throw unprocessable(`Validation failed: Policy is not included in the list`);
  return policy;
}

const FALSE_WORDS = new Set(['false', '0', 'f', 'off', 'no', '']);

function mergeAlerts(
  current: Record<string, boolean>,
  given: Record<string, unknown> | undefined,
): Record<string, boolean> {
  const out: Record<string, boolean> = {};
  for (const type of ALERT_TYPES) {
    const raw = given?.[type];
    const word = typeof raw === 'string' || typeof raw === 'number' ? String(raw).toLowerCase() : null;
    out[type] =
      raw === undefined
        ? (current[type] ?? false)
        : typeof raw === 'boolean'
          ? raw
          : !(word !== null && FALSE_WORDS.has(word));
  }
  return out;
}

export function serializeSubscription(row: PushRow, serverKey: string): Record<string, unknown> {
  return {
    id: row.id,
    endpoint: row.endpoint,
    standard: Boolean(row.standard),
    alerts: JSON.parse(row.alerts),
    server_key: serverKey,
    policy: row.policy,
  };
}
