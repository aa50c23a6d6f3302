/**
 * The client's event path: the device's events (msg_type Event) as the host's typed ones
 * (CoprocEvents), reading both generations — the documented firmware puts a disconnect's reason in
 * `resp`; the current one sends resp 0 with the reason, the SSID and its length in their own fields.
 */
import type { EventEmitter } from 'node:events';
import type { CoprocEvents } from './api.js';
import type { Body } from './codec.js';
import { bytesOf, securityFromWire, ssidText, stripNul } from './convert.js';
import { macFromWire } from './mac.js';
import type { EventName } from './operations.js';

/** Emits the event the device sent, typed, on `target`. */
export function emitDeviceEvent(target: Pick<EventEmitter<CoprocEvents>, 'emit'>, name: EventName, body: Body): void {
  switch (name) {
    case 'devInit':
      target.emit('devInit', { initData: bytesOf(body.init_data) });
      break;
    case 'heartbeat':
      target.emit('heartbeat', { number: body.hb_num as number });
      break;
    case 'stationDisconnected': {
      const ssidBytes = eventSsid(body);
      target.emit('stationDisconnected', {
        reason: disconnectReason(body),
        ...(ssidBytes ? { ssid: ssidText(ssidBytes), ssidBytes } : {}),
      });
      break;
    }
    case 'softApStationDisconnected':
      target.emit('softApStationDisconnected', { mac: macFromWire(bytesOf(body.mac)), reason: disconnectReason(body) });
      break;
    case 'stationConnected': {
      const ssidBytes = eventSsid(body) ?? new Uint8Array();
      target.emit('stationConnected', {
        ssid: ssidText(ssidBytes),
        ssidBytes,
        bssid: macFromWire(bytesOf(body.bssid)),
        channel: body.channel as number,
        security: securityFromWire(body.authmode as number),
      });
      break;
    }
    case 'softApStationConnected':
      target.emit('softApStationConnected', { mac: macFromWire(bytesOf(body.mac)), aid: body.aid as number });
      break;
    case 'customRpc':
      target.emit('customRpc', { id: body.custom_evt_id as number, data: bytesOf(body.data) });
      break;
    case 'dhcpDnsStatus':
      target.emit('dhcpDnsStatus', {
        iface: body.iface as number,
        linkUp: Boolean(body.net_link_up),
        dhcpUp: Boolean(body.dhcp_up),
        dnsUp: Boolean(body.dns_up),
      });
      break;
  }
}

/** The current firmware sends resp 0 and the reason in its own field; the documented one has it in resp. */
function disconnectReason(body: Body): number {
  const reason = Number(body.reason) || 0;
  return reason !== 0 ? reason : (body.resp as number);
}

/** The SSID an event names (current firmware), cut to ssid_len; null when the event names none. */
function eventSsid(body: Body): Uint8Array | null {
  const bytes = stripNul(bytesOf(body.ssid));
  if (bytes.length === 0) return null;
  const length = Number(body.ssid_len) || bytes.length;
  return bytes.subarray(0, Math.min(length, bytes.length));
}
