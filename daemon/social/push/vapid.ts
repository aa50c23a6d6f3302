/** The instance's VAPID key pair for Web Push: generated at first start, then kept in the settings table. */
import webpush from 'web-push';
import type { Db } from '../../store/db.js';
import { getOrCreateSetting } from '../../store/settings.js';

export interface VapidKeys { publicKey: string; privateKey: string }

export async function vapidKeys(db: Db): Promise<VapidKeys> {
  const stored = await getOrCreateSetting(db, 'social.vapid_keys', () => JSON.stringify(webpush.generateVAPIDKeys()));
  return JSON.parse(stored) as VapidKeys;
}
