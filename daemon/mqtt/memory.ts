/**
 * What the bridge keeps across restarts, in the settings table: the last device id, and which
 * retained topics it left on the broker (so a changed prefix, a new coprocessor or discovery turned
 * off can clear them instead of leaving ghost entities in Home Assistant).
 */
import type { Db } from '../store/db.js';
import { getSetting, setSetting } from '../store/settings.js';
import { deviceIdFromMac } from './device-id.js';

const DEVICE_ID_KEY = 'mqtt.device_id';
const DEVICE_ID_SOURCE_KEY = 'mqtt.device_id_source';

/** Where the device id came from: the station MAC, or the machine id (or a random one) for a box whose coprocessor never told its MAC. */
export type DeviceIdSource = 'mac' | 'machine';
const RETAINED_KEY = 'mqtt.retained';

/** The identity under which retained messages were published. */
export interface RetainedIdentity {
  prefix: string;
  deviceId: string;
  /** Discovery prefix of the retained discovery config, or null when none was published. */
  discoveryPrefix: string | null;
}

export interface BridgeMemory {
  deviceId(): Promise<string | null>;
  /** Null for an id remembered before sources were: those were all MACs. */
  deviceIdSource(): Promise<DeviceIdSource | null>;
  rememberDeviceId(deviceId: string, source?: DeviceIdSource): Promise<void>;
  retained(): Promise<RetainedIdentity | null>;
  rememberRetained(identity: RetainedIdentity): Promise<void>;
}

export function settingsMemory(db: Db): BridgeMemory {
  return {
    async deviceId() {
      return deviceIdFromMac(await getSetting(db, DEVICE_ID_KEY));
    },
    async deviceIdSource() {
      const source = await getSetting(db, DEVICE_ID_SOURCE_KEY);
      return source === 'mac' || source === 'machine' ? source : null;
    },
    async rememberDeviceId(deviceId, source = 'mac') {
      if ((await getSetting(db, DEVICE_ID_KEY)) !== deviceId) await setSetting(db, DEVICE_ID_KEY, deviceId);
      if ((await getSetting(db, DEVICE_ID_SOURCE_KEY)) !== source) await setSetting(db, DEVICE_ID_SOURCE_KEY, source);
    },
    async retained() {
      return parseIdentity(await getSetting(db, RETAINED_KEY));
    },
    async rememberRetained(identity) {
      const value = JSON.stringify(identity);
      if ((await getSetting(db, RETAINED_KEY)) !== value) await setSetting(db, RETAINED_KEY, value);
    },
  };
}

function parseIdentity(text: string | null): RetainedIdentity | null {
  if (!text) return null;
  try {
    const value = JSON.parse(text) as Partial<RetainedIdentity>;
    if (typeof value.prefix !== 'string' || typeof value.deviceId !== 'string') return null;
    const discoveryPrefix = typeof value.discoveryPrefix === 'string' ? value.discoveryPrefix : null;
    return { prefix: value.prefix, deviceId: value.deviceId, discoveryPrefix };
  } catch {
    return null;
  }
}
