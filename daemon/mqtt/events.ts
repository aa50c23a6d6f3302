/**
 * The device's events as Home Assistant's event entity takes them: one topic, each message a JSON
 * object whose `event_type` is one of the declared types, the event's own fields beside it (the
 * disconnect reason, for instance). Progress ticks stay on their own topic only: an automation
 * wants "it happened", not every percent.
 */
import type { DeviceEvent } from '../device/state.js';

export const HA_EVENT_TYPES = ['disconnected', 'setup_ap_started', 'setup_ap_stopped', 'coprocessor_reset'] as const;

/** The event entity's message for `event`, or null when it is not one of HA_EVENT_TYPES. */
export function haEventPayload(event: DeviceEvent): string | null {
  if (!(HA_EVENT_TYPES as readonly string[]).includes(event.name)) return null;
  return JSON.stringify({ ...event.payload, event_type: event.name, at: event.at });
}
