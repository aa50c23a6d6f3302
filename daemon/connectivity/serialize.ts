/** The JSON shape of a saved network: never its password, only whether it has one. */
import type { SavedNetwork } from './networks-repo.js';
import { ssidHex, ssidText } from './network-input.js';

export function serializeNetwork(network: SavedNetwork, position: number) {
  return {
    id: String(network.id),
    ssid: ssidText(network.ssid),
    ssid_hex: ssidHex(network.ssid),
    hidden: network.hidden,
    position,
    has_password: network.passphrase !== '',
    password_refused: network.passwordRefused,
    last_success_at: network.lastSuccessAt,
  };
}
