import { createHmac, randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';

/**
 * The device id of the box on MQTT is its station MAC as 12 lowercase hex digits (docs/architecture.md, MQTT).
 * The coprocessor reports the MAC; the bridge remembers the last one it saw so that, after a
 * restart, the box shows up under the same id even while the coprocessor does not answer yet
 * (the moment a home-automation user most wants to see it, as `device_lost`).
 */
export function deviceIdFromMac(mac: string | null | undefined): string | null {
  if (typeof mac !== 'string') return null;
  const match =
    /^([0-9a-f]{2})[:-]?([0-9a-f]{2})[:-]?([0-9a-f]{2})[:-]?([0-9a-f]{2})[:-]?([0-9a-f]{2})[:-]?([0-9a-f]{2})$/i.exec(
      mac.trim(),
    );
  if (!match) return null;
  const id = match.slice(1).join('').toLowerCase();
  // An all-zero or broadcast address is what a device says before it knows its own.
  return id === '000000000000' || id === 'ffffffffffff' ? null : id;
}

/** "a0b1c2d3e4f5" → "a0:b1:c2:d3:e4:f5" (Home Assistant's device connections use this form). */
export function macFromDeviceId(deviceId: string): string {
  return deviceId.match(/../g)!.join(':');
}

/**
 * The id of a box whose coprocessor never told its MAC: 12 hex digits derived from the machine id
 * (an application-specific hash, as systemd asks, so the machine id itself is not published), or
 * random when there is no machine id. The bridge stores it and keeps it once the MAC is known.
 */
export async function fallbackDeviceId(machineIdPath: string): Promise<{ id: string; from: 'machine-id' | 'random' }> {
  const text = await readFile(machineIdPath, 'utf8').catch(() => '');
  const machineId = text.trim().toLowerCase();
  if (/^[0-9a-f]{32}$/.test(machineId) && !/^0+$/.test(machineId)) {
    const id = createHmac('sha256', machineId).update('nestbox mqtt device id').digest('hex').slice(0, 12);
    return { id, from: 'machine-id' };
  }
  return { id: randomBytes(6).toString('hex'), from: 'random' };
}
