/**
 * The box's printable label: the setup AP's name and key in text, a QR code a phone camera joins
 * directly (the `WIFI:` form Android and iOS read), and where the setup page and the dashboard are.
 * One SVG; the PNG is that SVG rendered, so the two never differ.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import QRCode from 'qrcode';
import { parseCidr, type Config } from '../config.js';
import { lazy } from '../lib/on-first-use.js';
import { storedBaseUrl } from '../store/base-url.js';
import type { Db } from '../store/db.js';
import { loadSetupPassphrase, storedSetupApName } from './setup-identity.js';

export interface SetupLabel {
  /** The setup AP's name (SSID). */
  ssid: string;
  /** Its WPA2 key. */
  key: string;
  dashboardUrl: string;
  /** The setup page on the setup AP's address, when one is configured. */
  setupUrl: string | null;
}

/** `\ ; , : "` are the WIFI: format's separators and quote: each is escaped with a backslash. */
const escapeWifiField = (text: string): string => text.replace(/[\\;,:"]/g, (c) => `\\${c}`);

/** The joining string phone cameras understand: `WIFI:T:WPA;S:<ssid>;P:<key>;;`. */
export function wifiJoinPayload(ssid: string, key: string): string {
  return `WIFI:T:WPA;S:${escapeWifiField(ssid)};P:${escapeWifiField(key)};;`;
}

const escapeXml = (text: string): string =>
  text.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]!);

const WIDTH = 640;
const HEIGHT = 300;
const QR_SIDE = 260;
const MARGIN = 20;

export async function setupLabelSvg(label: SetupLabel): Promise<string> {
  const qr = await QRCode.toString(wifiJoinPayload(label.ssid, label.key), {
    type: 'svg',
    errorCorrectionLevel: 'M',
    margin: 2,
  });
  // The library's SVG nests as it is, placed and sized by the outer one.
  const placedQr = qr.replace('<svg ', `<svg x="${MARGIN}" y="${MARGIN}" width="${QR_SIDE}" height="${QR_SIDE}" `);
  const x = MARGIN * 2 + QR_SIDE;
  const line = (y: number, size: number, text: string, extra = '') =>
    `<text x="${x}" y="${y}" font-size="${size}"${extra}>${escapeXml(text)}</text>`;
  const lines = [
    line(48, 26, 'Nestbox', ' font-weight="bold"'),
    line(84, 14, 'Set-up Wi-Fi (scan the code to join)'),
    line(110, 20, label.ssid, ' font-weight="bold"'),
    line(140, 14, 'Key'),
    line(166, 20, label.key, ' font-family="DejaVu Sans Mono, monospace" font-weight="bold"'),
    ...(label.setupUrl ? [line(196, 13, 'Set-up page'), line(214, 13, label.setupUrl)] : []),
    line(244, 13, 'Dashboard'),
    line(262, 13, label.dashboardUrl),
  ];
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}">`,
    `<rect width="${WIDTH}" height="${HEIGHT}" fill="#ffffff"/>`,
    `<g font-family="DejaVu Sans, Helvetica, Arial, sans-serif" fill="#000000">`,
    ...lines,
    '</g>',
    placedQr,
    '</svg>',
    '',
  ].join('\n');
}

const sharpModule = lazy('image rendering (sharp)', async () => (await import('sharp')).default);

/** Rendered at 3× so the QR code's modules stay sharp on a printer. */
export async function setupLabelPng(svg: string): Promise<Buffer> {
  const sharp = await sharpModule();
  return sharp(Buffer.from(svg), { density: 72 * 3 })
    .png()
    .toBuffer();
}

export class LabelUnavailable extends Error {}

/** What the label shows, from the box's database and configuration. */
export async function loadSetupLabel(db: Db, config: Config): Promise<SetupLabel> {
  const ssid = await storedSetupApName(db);
  if (!ssid) {
    throw new LabelUnavailable(
      "the setup network's name comes from the Wi-Fi coprocessor, which this box has not met yet: start the daemon once (systemctl start nestbox), then print the label again",
    );
  }
  const address = config.setupApAddress ? parseCidr(config.setupApAddress)?.address : undefined;
  return {
    ssid,
    key: await loadSetupPassphrase(db, config.setupPassphrase),
    // The base URL the instance keeps (stored at its first start), as the daemon runs with it.
    dashboardUrl: `${(await storedBaseUrl(db)) ?? config.baseUrl}/dashboard`,
    setupUrl: address ? `http://${address}/setup` : null,
  };
}

/** Writes nestbox-label.svg and nestbox-label.png into `dir`; returns their paths. */
export async function writeSetupLabel(dir: string, label: SetupLabel): Promise<{ svg: string; png: string }> {
  const svg = await setupLabelSvg(label);
  const paths = { svg: join(dir, 'nestbox-label.svg'), png: join(dir, 'nestbox-label.png') };
  await mkdir(dir, { recursive: true });
  await writeFile(paths.svg, svg, { mode: 0o600 });
  await writeFile(paths.png, await setupLabelPng(svg), { mode: 0o600 });
  return paths;
}
