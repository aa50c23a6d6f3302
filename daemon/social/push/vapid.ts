/** The instance's VAPID key pair for Web Push: generated at first start, then kept in the settings table. */
import type { Db } from '../../store/db.js';
import { lazy } from '../../lib/on-first-use.js';
import { getOrCreateSetting, getSetting } from '../../store/settings.js';

export interface VapidKeys {
  publicKey: string;
  privateKey: string;
}

/** web-push (and its crypto dependencies) is loaded only when keys are made or a push is sent. */
export const webPush = lazy(
  'Web Push (web-push)',
  async () => ((await import('web-push')) as unknown as { default: typeof import('web-push') }).default,
);

export async function vapidKeys(db: Db): Promise<VapidKeys> {
  const existing = await getSetting(db, 'social.vapid_keys');
  if (existing) return JSON.parse(existing) as VapidKeys;
  const made = JSON.stringify((await webPush()).generateVAPIDKeys());
  return JSON.parse(await getOrCreateSetting(db, 'social.vapid_keys', () => made)) as VapidKeys;
}
