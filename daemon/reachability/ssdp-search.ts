/**
 * The SSDP search for the home router's UPnP IGD, from the box's own IPv4 address only. The
 * port-mapping library's search binds port 1900 on every address of the machine, IPv6 ones
 * included, and a bind that fails (a SLAAC address still in duplicate-address detection, a privacy
 * address just retired) is thrown where nothing can catch it: the daemon would exit. One M-SEARCH
 * from one socket the box owns finds the same routers (InternetGatewayDevice:2, what the library
 * asks for), and the library takes over from the description URL.
 */
import { createSocket } from 'node:dgram';

const SSDP_ADDRESS = '239.255.255.250';
const SSDP_PORT = 1900;
export const IGD2 = 'urn:schemas-upnp-org:device:InternetGatewayDevice:2';

export function mSearch(searchTarget: string, mxSeconds: number): Buffer {
  return Buffer.from(
    [
      'M-SEARCH * HTTP/1.1',
      `HOST: ${SSDP_ADDRESS}:${SSDP_PORT}`,
      'MAN: "ssdp:discover"',
      `MX: ${mxSeconds}`,
      `ST: ${searchTarget}`,
      '',
      '',
    ].join('\r\n'),
  );
}

/** The LOCATION of a search response for `searchTarget`, or null when the datagram is not one. */
export function responseLocation(message: string, searchTarget: string): string | null {
  const [status, ...lines] = message.split(/\r?\n/);
  if (!/^HTTP\/1\.1 200/i.test(status ?? '')) return null;
  const headers = new Map(
    lines
      .map((line) => /^([^:]+):\s*(.*)$/.exec(line))
      .filter((match): match is RegExpExecArray => match !== null)
      .map((match) => [match[1].trim().toLowerCase(), match[2].trim()]),
  );
  if (headers.get('st') !== searchTarget) return null;
  const location = headers.get('location');
  return location && /^https?:\/\//i.test(location) ? location : null;
}

/**
 * Sends the search (again after 1 s: UDP may lose it) from `fromAddress` and resolves with the
 * first IGD's description URL; null when none answers within `timeoutMs`.
 */
export async function searchIgd(fromAddress: string | null, timeoutMs: number): Promise<string | null> {
  const socket = createSocket({ type: 'udp4' });
  try {
    await new Promise<void>((resolve, reject) => {
      socket.once('error', reject);
      socket.bind({ address: fromAddress ?? undefined, port: 0 }, () => {
        socket.off('error', reject);
        resolve();
      });
    });
    if (fromAddress) socket.setMulticastInterface(fromAddress);
    return await new Promise<string | null>((resolve) => {
      const message = mSearch(IGD2, 1);
      const send = () => socket.send(message, SSDP_PORT, SSDP_ADDRESS, () => undefined);
      const timers = [setTimeout(send, 1000), setTimeout(() => resolve(null), timeoutMs)];
      socket.on('error', () => undefined);
      socket.on('message', (data) => {
        const location = responseLocation(data.toString('utf8'), IGD2);
        if (!location) return;
        timers.forEach(clearTimeout);
        resolve(location);
      });
      send();
    });
  } catch {
    return null;
  } finally {
    socket.close();
  }
}
