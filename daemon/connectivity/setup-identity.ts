/**
 * How the setup AP presents itself: an SSID derived from the MAC (so two boxes in one house
 * differ) and a WPA2 passphrase that is the config's, or generated once per device and kept.
 */
import { randomInt } from 'node:crypto';
import type { Db } from '../store/db.js';
import { getOrCreateSetting } from '../store/settings.js';

const SETTING_KEY = 'connectivity.setup_passphrase';
/** No 0/O, 1/l/I: the passphrase is read off a screen and typed on a phone. */
const ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';

export function generateSetupPassphrase(): string {
  const group = () => Array.from({ length: 4 }, () => ALPHABET[randomInt(ALPHABET.length)]).join('');
  return [group(), group(), group()].join('-');
}

export async function loadSetupPassphrase(db: Db, configured: string | null): Promise<string> {
  return configured ?? getOrCreateSetting(db, SETTING_KEY, generateSetupPassphrase);
}

export function setupApSsid(mac: string | null): string {
  const tail = (mac ?? '')
    .replace(/[^0-9a-fA-F]/g, '')
    .slice(-4)
    .toUpperCase();
  return tail ? `Nestbox-${tail}` : 'Nestbox-setup';
}
