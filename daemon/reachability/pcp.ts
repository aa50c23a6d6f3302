/**
 * PCP (RFC 6887) MAP requests for IPv6: the way a box asks its router's firewall to let inbound
 * connections to one of its ports through (a "pinhole"; there is no address translation in IPv6).
 * UPnP IGDv2's AddPinhole does the same over SOAP, but miniupnpd (what most home routers run)
 * refuses it for internal ports below 1024 (upnpsoap.c `PinholeVerification`), and the box needs
 * 443 and 80; its PCP server has no such limit (pcpserver.c `CreatePCPMap_FW`). No npm library
 * speaks PCP (@achingbrain/nat-port-mapper does NAT-PMP only), so the 60-byte exchange is here.
 */
import { randomBytes } from 'node:crypto';
import { createSocket } from 'node:dgram';
import { isIPv6 } from 'node:net';

export const PCP_PORT = 5351;
const VERSION = 2;
const OPCODE_MAP = 1;
const RESPONSE_BIT = 0x80;
const HEADER_BYTES = 24;
const MAP_BYTES = 36;
const PROTOCOL_TCP = 6;

/** Result codes (RFC 6887 §7.4) in plain words. */
const RESULTS: Record<number, string> = {
  1: 'the router speaks another PCP version (UNSUPP_VERSION)',
  2: 'the router does not allow it (NOT_AUTHORIZED)',
  3: 'the router could not read the request (MALFORMED_REQUEST)',
  4: 'the router does not do MAP requests (UNSUPP_OPCODE)',
  5: 'the router does not take an option of the request (UNSUPP_OPTION)',
  6: 'the router could not read an option (MALFORMED_OPTION)',
  7: 'the router has a network failure (NETWORK_FAILURE)',
  8: 'the router has no room for more pinholes (NO_RESOURCES)',
  9: 'the router does not open TCP ports (UNSUPP_PROTOCOL)',
  10: 'the router refuses: too many pinholes for this device (USER_EX_QUOTA)',
  11: 'the router cannot open the port asked (CANNOT_PROVIDE_EXTERNAL)',
  12: 'the request came through another translator: the address the router saw is not the box’s (ADDRESS_MISMATCH)',
  13: 'the router refuses: too many remote peers (EXCESSIVE_REMOTE_PEERS)',
};

export interface MapRequest {
  /** The box's own address (the request is sent from it, and the router opens the port to it). */
  client: string;
  port: number;
  /** Seconds; 0 deletes the mapping. */
  lifetime: number;
  /** 12 bytes that tie renewals and the deletion to the mapping (RFC 6887 §11.1). */
  nonce: Buffer;
}

export interface MapResponse {
  result: number;
  lifetime: number;
  /** The server's epoch: a value that went backwards means the router restarted (§8.5). */
  epoch: number;
  nonce: Buffer;
  port: number;
  externalPort: number;
  externalAddress: string;
}

export class PcpError extends Error {
  constructor(
    message: string,
    readonly result: number | null,
  ) {
    super(message);
    this.name = 'PcpError';
  }
}

export function newNonce(): Buffer {
  return randomBytes(12);
}

function addressBytes(address: string): Buffer {
  const full = new URL(`http://[${address}]/`).hostname.slice(1, -1);
  const [head, tail = ''] = full.split('::');
  const part = (text: string) => (text ? text.split(':') : []);
  const groups = full.includes('::')
    ? [...part(head), ...new Array<string>(8 - part(head).length - part(tail).length).fill('0'), ...part(tail)]
    : part(full);
  const bytes = Buffer.alloc(16);
  groups.forEach((group, i) => bytes.writeUInt16BE(parseInt(group, 16), i * 2));
  return bytes;
}

function bytesToAddress(bytes: Buffer): string {
  const groups = [];
  for (let i = 0; i < 16; i += 2) groups.push(bytes.readUInt16BE(i).toString(16));
  return new URL(`http://[${groups.join(':')}]/`).hostname.slice(1, -1);
}

export function encodeMapRequest(request: MapRequest): Buffer {
  if (!isIPv6(request.client)) throw new Error(`not an IPv6 address: ${request.client}`);
  const message = Buffer.alloc(HEADER_BYTES + MAP_BYTES);
  message[0] = VERSION;
  message[1] = OPCODE_MAP;
  message.writeUInt32BE(request.lifetime, 4);
  addressBytes(request.client).copy(message, 8);
  request.nonce.copy(message, HEADER_BYTES);
  message[HEADER_BYTES + 12] = PROTOCOL_TCP;
  message.writeUInt16BE(request.port, HEADER_BYTES + 16);
  // The suggested external port is the same: a firewall opens the port itself.
  message.writeUInt16BE(request.port, HEADER_BYTES + 18);
  // Suggested external address left all-zero (::): the router chooses.
  return message;
}

/** The MAP response, or null when the datagram is not one (another opcode, too short). */
export function decodeMapResponse(message: Buffer): MapResponse | null {
  if (message.length < HEADER_BYTES || message[1] !== (RESPONSE_BIT | OPCODE_MAP)) return null;
  const result = message[3];
  const base = {
    result,
    lifetime: message.readUInt32BE(4),
    epoch: message.readUInt32BE(8),
  };
  if (message.length < HEADER_BYTES + MAP_BYTES)
    return result === 0 ? null : { ...base, nonce: Buffer.alloc(12), port: 0, externalPort: 0, externalAddress: '::' };
  const body = message.subarray(HEADER_BYTES);
  return {
    ...base,
    nonce: Buffer.from(body.subarray(0, 12)),
    port: body.readUInt16BE(16),
    externalPort: body.readUInt16BE(18),
    externalAddress: bytesToAddress(body.subarray(20, 36)),
  };
}

export function describeResult(result: number): string {
  return RESULTS[result] ?? `the router refused (PCP result ${result})`;
}

/**
 * Sends one MAP request from the box's address to the router (retransmitted after 1 s and 2 s, as
 * RFC 6887 §8.1.1 has clients do, with shorter waits) and returns the router's success answer;
 * throws a PcpError with the reason otherwise.
 */
export async function pcpMap(
  router: string,
  request: MapRequest,
  options: { iface?: string; port?: number; timeoutMs?: number } = {},
): Promise<MapResponse> {
  const socket = createSocket({ type: 'udp6' });
  const target = options.iface && /^fe80:/i.test(router) ? `${router}%${options.iface}` : router;
  const message = encodeMapRequest(request);
  try {
    await new Promise<void>((resolve, reject) => {
      socket.once('error', reject);
      socket.bind({ address: request.client, port: 0 }, () => {
        socket.off('error', reject);
        resolve();
      });
    });
    return await new Promise<MapResponse>((resolve, reject) => {
      const timers: NodeJS.Timeout[] = [];
      const finish = (error: Error | null, answer?: MapResponse) => {
        timers.forEach(clearTimeout);
        if (error) reject(error);
        else resolve(answer!);
      };
      socket.on('error', (error) => finish(new PcpError(`PCP: ${error.message}`, null)));
      socket.on('message', (data) => {
        const answer = decodeMapResponse(data);
        if (!answer) return;
        if (answer.result !== 0) return finish(new PcpError(describeResult(answer.result), answer.result));
        if (!answer.nonce.equals(request.nonce) || answer.port !== request.port) return;
        finish(null, answer);
      });
      const send = () => socket.send(message, options.port ?? PCP_PORT, target, () => undefined);
      send();
      timers.push(setTimeout(send, 1000), setTimeout(send, 3000));
      timers.push(
        setTimeout(
          () => finish(new PcpError('the router does not answer PCP requests', null)),
          options.timeoutMs ?? 5000,
        ),
      );
    });
  } finally {
    socket.close();
  }
}
