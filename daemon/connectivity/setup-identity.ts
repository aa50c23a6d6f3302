/**
 * How the setup AP presents itself: an SSID derived from the MAC (so two boxes in one house
 * differ) and a WPA2 passphrase that is the config's, or generated once per device and kept.
 * The SSID is remembered once the coprocessor has told its MAC, so the label can be printed by
 * the admin tool without the device.
 */
import { randomInt } from 'node:crypto';
import type { DeviceState } from '../device/state.js';
import type { Logger } from '../log/logger.js';
import type { Db } from '../store/db.js';
import { getOrCreateSetting, getSetting, setSetting } from '../store/settings.js';

const SETTING_KEY = 'connectivity.setup_passphrase';
const AP_NAME_KEY = 'connectivity.setup_ap_ssid';
/** No 0/O, 1/l/I: the passphrase is read off a screen and typed on a phone. */
const ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';

export function generateSetupPassphrase(): string {
  const group = () => Array.from({ length: 4 }, () => ALPHABET[randomInt(ALPHABET.length)]).join('');
  return [group(), group(), group()].join('-');
}

export async function loadSetupPassphrase(db: Db, configured: string | null): Promise<string> {
  return configured ?? getOrCreateSetting(db, SETTING_KEY, generateSetupPassphrase);
}

/** A new key for the setup AP, kept from now on (the daemon uses it from its next start). */
export async function replaceSetupPassphrase(db: Db): Promise<string> {
  const passphrase = generateSetupPassphrase();
  await setSetting(db, SETTING_KEY, passphrase);
  return passphrase;
}

/** The setup AP's name as the daemon last derived it, or null before it has met the coprocessor. */
export function storedSetupApName(db: Db): Promise<string | null> {
  return getSetting(db, AP_NAME_KEY);
}

/** Keeps the stored setup AP name in step with the coprocessor's MAC; returns the unsubscribe. */
export function rememberSetupApName(db: Db, device: DeviceState, log: Logger): () => void {
  let stored: string | null = null;
  const update = () => {
    const mac = device.get().wifi.mac;
    if (!mac || setupApSsid(mac) === stored) return;
    stored = setupApSsid(mac);
    setSetting(db, AP_NAME_KEY, stored).catch((error: Error) =>
      log.warn('setup AP name not stored', { error: error.message }),
    );
  };
  device.on('change', update);
  update();
  return () => device.off('change', update);
}

export function setupApSsid(mac: string | null): string {
  const tail = (mac ?? '')
    .replace(/[^0-9a-fA-F]/g, '')
    .slice(-4)
    .toUpperCase();
  return tail ? `Nestbox-${tail}` : 'Nestbox-setup';
}
