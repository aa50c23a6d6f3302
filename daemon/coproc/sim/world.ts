/**
 * The radio environment around the simulated coprocessor: the access points in range, with the
 * passphrases they accept. Tests import the known networks from here.
 */

export const SEC = {
  open: 0,
  wep: 1,
  wpa_psk: 2,
  wpa2_psk: 3,
  wpa_wpa2_psk: 4,
  wpa2_enterprise: 5,
  wpa3_psk: 6,
  wpa2_wpa3_psk: 7,
} as const;

export interface SimNetwork {
  ssid: Uint8Array;
  bssid: string;
  channel: number;
  rssi: number;
  /** Ctrl_WifiSecProt value. */
  security: number;
  passphrase: string;
  /** Beacons without the SSID: a scan shows it with an empty name; connecting by name works. */
  hidden: boolean;
  inRange: boolean;
}

/** The networks every simulator starts with (scenario "default"). */
export const SIM_NETWORKS = {
  home: { ssid: 'HomeNet', passphrase: 'nestbox-home-2024', bssid: '3c:84:6a:11:22:33', channel: 6, rssi: -48 },
  hidden: { ssid: 'AtticLab', passphrase: 'attic-secret-77', bssid: '3c:84:6a:44:55:66', channel: 11, rssi: -67 },
  open: { ssid: 'CoffeeShop Free', passphrase: '', bssid: '8e:20:11:aa:bb:cc', channel: 1, rssi: -74 },
  /** "Café-Gast" in Latin-1: not valid UTF-8 on the air. */
  latin1: {
    ssidBytes: Uint8Array.from(Buffer.from('Caf\xe9-Gast', 'latin1')),
    passphrase: 'gastzugang',
    bssid: '5c:49:79:01:02:03',
    channel: 3,
    rssi: -80,
  },
  wpa3: { ssid: 'Neighbor-WPA3', passphrase: 'not-ours-1234', bssid: 'a4:2b:b0:de:ad:01', channel: 9, rssi: -85 },
} as const;

const text = (value: string) => Uint8Array.from(Buffer.from(value, 'utf8'));

export function defaultNetworks(): SimNetwork[] {
  const n = SIM_NETWORKS;
  return [
    {
      ssid: text(n.home.ssid),
      bssid: n.home.bssid,
      channel: n.home.channel,
      rssi: n.home.rssi,
      security: SEC.wpa2_psk,
      passphrase: n.home.passphrase,
      hidden: false,
      inRange: true,
    },
    {
      ssid: text(n.hidden.ssid),
      bssid: n.hidden.bssid,
      channel: n.hidden.channel,
      rssi: n.hidden.rssi,
      security: SEC.wpa2_psk,
      passphrase: n.hidden.passphrase,
      hidden: true,
      inRange: true,
    },
    {
      ssid: text(n.open.ssid),
      bssid: n.open.bssid,
      channel: n.open.channel,
      rssi: n.open.rssi,
      security: SEC.open,
      passphrase: '',
      hidden: false,
      inRange: true,
    },
    {
      ssid: n.latin1.ssidBytes.slice(),
      bssid: n.latin1.bssid,
      channel: n.latin1.channel,
      rssi: n.latin1.rssi,
      security: SEC.wpa_wpa2_psk,
      passphrase: n.latin1.passphrase,
      hidden: false,
      inRange: true,
    },
    {
      ssid: text(n.wpa3.ssid),
      bssid: n.wpa3.bssid,
      channel: n.wpa3.channel,
      rssi: n.wpa3.rssi,
      security: SEC.wpa3_psk,
      passphrase: n.wpa3.passphrase,
      hidden: false,
      inRange: true,
    },
  ];
}

export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}

export function ssidBytes(ssid: string | Uint8Array): Uint8Array {
  return typeof ssid === 'string' ? text(ssid) : ssid;
}
