/**
 * One DNS request and its answer, straight to a given server (the owner's primary, not a
 * resolver): UDP first, as nsupdate does, two tries; TCP when the answer comes back truncated or
 * UDP gets nothing. The answer must carry the request's id.
 */
import { createSocket } from 'node:dgram';
import { isIPv6, Socket } from 'node:net';

export interface DnsServer {
  address: string;
  port: number;
}

export class DnsExchangeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DnsExchangeError';
  }
}

const TRUNCATED = 0x0200;

export async function dnsExchange(server: DnsServer, message: Buffer, timeoutMs = 2500): Promise<Buffer> {
  let answer: Buffer | null = null;
  for (let attempt = 0; attempt < 2 && !answer; attempt += 1)
    answer = await overUdp(server, message, timeoutMs).catch(() => null);
  if (answer && (answer.readUInt16BE(2) & TRUNCATED) === 0) return answer;
  return overTcp(server, message, timeoutMs * 2);
}

function overUdp(server: DnsServer, message: Buffer, timeoutMs: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const socket = createSocket(isIPv6(server.address) ? 'udp6' : 'udp4');
    const done = (error: Error | null, answer?: Buffer) => {
      clearTimeout(timer);
      socket.close();
      if (error) reject(error);
      else resolve(answer!);
    };
    const timer = setTimeout(() => done(new DnsExchangeError('no answer')), timeoutMs);
    socket.on('error', (error) => done(error));
    socket.on('message', (answer) => {
      if (answer.length >= 12 && answer.readUInt16BE(0) === message.readUInt16BE(0)) done(null, answer);
    });
    socket.send(message, server.port, server.address);
  });
}

function overTcp(server: DnsServer, message: Buffer, timeoutMs: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const socket = new Socket();
    let received = Buffer.alloc(0);
    const done = (error: Error | null, answer?: Buffer) => {
      clearTimeout(timer);
      socket.destroy();
      if (error) reject(error);
      else resolve(answer!);
    };
    const timer = setTimeout(
      () => done(new DnsExchangeError(`no answer from ${server.address} port ${server.port}`)),
      timeoutMs,
    );
    socket.on('error', (error) =>
      done(new DnsExchangeError(`${server.address} port ${server.port}: ${error.message}`)),
    );
    socket.on('data', (chunk) => {
      received = Buffer.concat([received, chunk]);
      if (received.length >= 2 && received.length >= 2 + received.readUInt16BE(0)) {
        const answer = received.subarray(2, 2 + received.readUInt16BE(0));
        if (answer.length >= 12 && answer.readUInt16BE(0) === message.readUInt16BE(0)) done(null, answer);
        else done(new DnsExchangeError('the server answered another request'));
      }
    });
    socket.on('close', () => done(new DnsExchangeError('the server closed the connection without an answer')));
    const length = Buffer.alloc(2);
    length.writeUInt16BE(message.length);
    socket.connect(server.port, server.address, () => socket.write(Buffer.concat([length, message])));
  });
}
