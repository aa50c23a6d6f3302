/**
 * The streaming server's door on the box's other listeners (the HTTPS one): `/api/v1/streaming…`
 * requests and WebSocket upgrades there go to the streaming server the social side runs now, so a
 * client of `https://<name>` streams at `wss://<name>` with no other port open on the router. The
 * social side puts its server in when built and takes it out when stopped (a switch of the public
 * address builds a new one); meanwhile upgrades are refused with 503 and requests go to the app.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { refuse, type StreamingServer } from './server.js';

type StreamingDoor = Pick<StreamingServer, 'handleRequest' | 'handleUpgrade'>;

const STREAMING_PATH = /^\/api\/v1\/streaming(?:\/|$)/;

export class StreamingSlot {
  private server: StreamingDoor | null = null;

  fill(server: StreamingDoor): void {
    this.server = server;
  }

  /** Empties the slot if `server` is still the one in it. */
  empty(server: StreamingDoor): void {
    if (this.server === server) this.server = null;
  }

  /** Serves a streaming path and says so; any other request (or none running) is the app's. */
  readonly request = (req: IncomingMessage, res: ServerResponse): boolean => {
    const server = this.server;
    if (!server || !STREAMING_PATH.test(pathOf(req))) return false;
    server.handleRequest(req, res);
    return true;
  };

  readonly upgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    const server = this.server;
    if (!STREAMING_PATH.test(pathOf(req))) return refuse(socket, 404, 'Not found');
    if (!server) return refuse(socket, 503, 'the instance is moving to its new public address; try again in a second');
    server.handleUpgrade(req, socket, head);
  };
}

function pathOf(req: IncomingMessage): string {
  const url = req.url ?? '/';
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}
