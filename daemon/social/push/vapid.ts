/** The instance's VAPID key pair for Web Push: generated at first start, then kept in the settings table. */
import { generateKeyPairSync } from 'node:crypto';
import type { Db } from '../../store/db.js';
import { lazy } from '../../lib/on-first-use.js';
import { getOrCreateSetting, getSetting } from '../../store/settings.js';

export interface VapidKeys {
  publicKey: string;
  privateKey: string;
}

/** web-push (and its crypto dependencies) is loaded only when a push is sent. */
export const webPush = lazy(
  'Web Push (web-push)',
  async () => ((await import('web-push')) as unknown as { default: typeof import('web-push') }).default,
);

export async function vapidKeys(db: Db): Promise<VapidKeys> {
  const existing = await getSetting(db, 'social.vapid_keys');
  if (existing) return JSON.parse(existing) as VapidKeys;
  const made = JSON.stringify(newVapidKeys());
  return JSON.parse(await getOrCreateSetting(db, 'social.vapid_keys', () => made)) as VapidKeys;
}

/**
 * A P-256 key pair as Web Push wants it (RFC 8292): the public key as the uncompressed point (65
 * bytes), the private key as its 32-byte scalar, both base64url. Made with node:crypto, so a first
 * start does not load web-push; JWK coordinates are always full length, with their leading zeros.
 */
function newVapidKeys(): VapidKeys {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const { x, y, d } = privateKey.export({ format: 'jwk' });
  if (!x || !y || !d) throw new Error('P-256 key without its coordinates');
  const point = Buffer.concat([Buffer.from([4]), Buffer.from(x, 'base64url'), Buffer.from(y, 'base64url')]);
  return { publicKey: point.toString('base64url'), privateKey: d };
}
