/** A WebSocket streaming client in a namespace of the virtual internet (stream-client.ts), read line by line. */
import { join } from 'node:path';
import { DIST } from '../paths.js';
import { spawnIn } from '../virtual-home/process.js';

export interface StreamMessage {
  event: string;
  stream: string[];
  payload: string;
}

export interface StreamClient {
  /** The first message of `event` (already received, or from now on). */
  next(event: string, timeoutMs: number): Promise<StreamMessage>;
  close(): Promise<void>;
}

const eventOf = (line: string): string | undefined => {
  try {
    return (JSON.parse(line) as { event?: string }).event;
  } catch {
    return undefined;
  }
};

/** Starts the client in `namespace`, trusting `caFile`, and resolves once the WebSocket is open. */
export async function openStream(namespace: string, url: string, token: string, caFile: string): Promise<StreamClient> {
  const script = join(DIST, 'test', 'helpers', 'virtual-internet', 'stream-client.js');
  const client = spawnIn(namespace, process.execPath, [script, url, token], {
    ...process.env,
    NODE_EXTRA_CA_CERTS: caFile,
  });
  const first = await client.waitForLine(
    (line) => /"open"|"error"/.test(line),
    15_000,
    `the WebSocket to ${url}`,
    true,
  );
  if (first.includes('"error"')) {
    await client.stop(500);
    throw new Error(`the WebSocket to ${url}: ${first}`);
  }
  return {
    async next(event, timeoutMs) {
      const line = await client.waitForLine((text) => eventOf(text) === event, timeoutMs, `a streamed ${event}`, true);
      return JSON.parse(line) as StreamMessage;
    },
    close: () => client.stop(1000),
  };
}
