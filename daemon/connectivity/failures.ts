/**
 * Why a station connection failed or dropped, told apart where the device allows it, and said in
 * words a person understands. The seed-era firmware answers ConnectAP with only 0 or −1, so a
 * failed connect is classified with a scan: a network that is not in range is `not_found`; a
 * secured network that is in range but refused us is `auth`. Disconnect events carry the IDF reason.
 */
export type ConnectFailure = 'auth' | 'not_found' | 'timeout' | 'failed' | 'no_network' | 'no_address';

const FAILURE_TEXT: Record<ConnectFailure, string> = {
  auth: 'The network refused the password. Check it and try again.',
  not_found: 'The network is not in range (or its name is misspelt).',
  timeout: 'The Wi-Fi chip did not answer in time.',
  failed: 'The box could not join the network.',
  no_address: 'The box joined the network but got no address from it (its router gave no DHCP answer).',
  no_network: 'No saved network is left to try: every saved password was refused, or none is saved.',
};

export function describeFailure(failure: ConnectFailure, ssid?: string | null): string {
  const text = FAILURE_TEXT[failure];
  return ssid && failure !== 'no_network' && failure !== 'timeout' ? `${ssid}: ${text}` : text;
}

/** IDF wifi_err_reason_t values that the disconnect event carries. */
const REASONS: Record<number, { name: string; failure: ConnectFailure }> = {
  2: { name: 'auth expired', failure: 'auth' },
  8: { name: 'left the network', failure: 'failed' },
  // The key handshake's failures: with a pre-shared key they mean a wrong password.
  14: { name: 'message integrity check failed (usually a wrong password)', failure: 'auth' },
  15: { name: '4-way handshake timeout (usually a wrong password)', failure: 'auth' },
  16: { name: 'group key handshake timeout', failure: 'auth' },
  17: { name: 'security settings differ in the handshake', failure: 'auth' },
  23: { name: '802.1X authentication failed', failure: 'auth' },
  200: { name: 'beacon timeout (access point gone)', failure: 'not_found' },
  201: { name: 'no access point found', failure: 'not_found' },
  202: { name: 'authentication failed', failure: 'auth' },
  203: { name: 'association failed', failure: 'failed' },
  204: { name: 'handshake timeout (usually a wrong password)', failure: 'auth' },
  205: { name: 'connection failed', failure: 'failed' },
  210: { name: 'no access point with a compatible security mode', failure: 'failed' },
  211: { name: 'no access point at the required security level', failure: 'failed' },
  212: { name: 'no access point with a strong enough signal', failure: 'not_found' },
};

export function describeDisconnectReason(reason: number): string {
  return REASONS[reason]?.name ?? `reason ${reason}`;
}

export function failureOfDisconnect(reason: number): ConnectFailure {
  return REASONS[reason]?.failure ?? 'failed';
}

/** A refused connect: was the network there, and does it ask for a password? */
export function classifyConnectRefusal(seen: { secured: boolean } | null, recentReason: number | null): ConnectFailure {
  if (recentReason !== null && REASONS[recentReason]) return REASONS[recentReason].failure;
  if (!seen) return 'not_found';
  return seen.secured ? 'auth' : 'failed';
}
