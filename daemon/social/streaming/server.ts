/**
 * The streaming server (Mastodon's protocol over the ws library) on its own port:
 * `/api/v1/streaming/health` answers OK; a WebSocket on `/api/v1/streaming` (optionally with
 * `?stream=…&tag=…`) takes `{"type":"subscribe"|"unsubscribe","stream":…,"tag":…}` messages.
 * The token comes in the Authorization header, the `access_token` query parameter, or the
 * Sec-WebSocket-Protocol header; an unknown token is refused before the upgrade (401).
 * A plain GET on the same paths (`/api/v1/streaming/user`, `?stream=public`) is served as
 * Server-Sent Events with one stream, for EventSource clients. `/metrics` gives the box owner
 * (admin:read) the clients, their queued bytes and the slow ones cut off, in Prometheus' text
 * format, as Mastodon's streaming server has a /metrics.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type { WebSocket, WebSocketServer } from 'ws';
import type { AuthContext, TokenResolver } from '../../lib/grants.js';
import { lazy } from '../../lib/on-first-use.js';
import type { Logger } from '../../log/logger.js';
import { channelFor, type Channel, type StreamRequest } from './channels.js';
import { EventSourceTransport, StreamConnection, WebSocketTransport } from './connection.js';
import type { StreamHub } from './hub.js';
import { StreamClients } from './clients.js';
import { prometheusText } from './metrics.js';

export interface StreamingOptions {
  host: string;
  port: number;
  publicPreview: boolean;
  resolve: TokenResolver;
  hub: StreamHub;
  log: Logger;
}

const PING_MS = 30_000;
const HEARTBEAT_MS = 15_000;
const STREAM_PATH = /^\/api\/v1\/streaming\/?([a-z:]*)$/;
const MAX_MESSAGE_BYTES = 4096;

export class StreamingServer {
  private readonly http: Server;
  /** Built with the first WebSocket upgrade: many boxes' clients never open one. */
  private wss: WebSocketServer | null = null;
  private readonly webSockets = lazy('the WebSocket server (ws)', async () => {
    const { WebSocketServer } = await import('ws');
    this.wss = new WebSocketServer({
      noServer: true,
      maxPayload: MAX_MESSAGE_BYTES,
      handleProtocols: (protocols) => [...protocols][0] ?? false,
    });
    return this.wss;
  });
  private pinger: NodeJS.Timeout | null = null;
  private readonly clients: StreamClients;
  private readonly eventStreams = new Set<ServerResponse>();

  constructor(private readonly options: StreamingOptions) {
    this.clients = new StreamClients(options.hub, options.log);
    this.http = createServer(this.handleRequest);
    this.http.on('upgrade', this.handleUpgrade);
  }

  /** A request on the streaming port, or on a streaming path of another listener (HTTPS). */
  readonly handleRequest = (req: IncomingMessage, res: ServerResponse): void => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (path === '/api/v1/streaming/health' && (req.method === 'GET' || req.method === 'HEAD')) {
      res.writeHead(200, { 'content-type': 'text/plain', 'cache-control': 'private, no-store' });
      res.end('OK');
      return;
    }
    if (path === '/metrics' && req.method === 'GET') {
      void this.metrics(req, res);
      return;
    }
    if (req.method === 'GET' && STREAM_PATH.test(path)) {
      void this.eventSource(req, res);
      return;
    }
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: 'Not found' }));
  };

  /** A WebSocket upgrade, from the streaming port or another listener. */
  readonly handleUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    void this.upgrade(req, socket, head);
  };

  async start(): Promise<AddressInfo> {
    await new Promise<void>((resolve, reject) => {
      this.http.once('error', reject);
      this.http.listen(this.options.port, this.options.host, () => {
        this.http.off('error', reject);
        resolve();
      });
    });
    this.pinger = setInterval(() => this.ping(), PING_MS);
    this.pinger.unref();
    return this.http.address() as AddressInfo;
  }

  async stop(): Promise<void> {
    if (this.pinger) clearInterval(this.pinger);
    for (const client of this.wss?.clients ?? []) client.terminate();
    this.wss?.close();
    const closed = new Promise<void>((resolve) => this.http.close(() => resolve()));
    // Event streams never end by themselves, on this port or on another listener.
    this.http.closeAllConnections();
    for (const stream of this.eventStreams) stream.destroy();
    await closed;
  }

  private ping(): void {
    for (const socket of this.wss?.clients ?? []) {
      const connection = (socket as WebSocket & { nestbox?: StreamConnection }).nestbox;
      if (connection && !connection.alive) {
        socket.terminate();
        continue;
      }
      if (connection) connection.alive = false;
      socket.ping();
    }
  }

  private async upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://x');
    if (!STREAM_PATH.test(url.pathname)) return refuse(socket, 404, 'Not found');
    const auth = await this.authenticate(req, url);
    if ('status' in auth) return refuse(socket, auth.status, auth.error);
    let wss: WebSocketServer;
    try {
      wss = await this.webSockets();
    } catch (error) {
      this.options.log.error('WebSocket upgrade refused', { error });
      return refuse(socket, 503, 'Streaming over WebSocket is unavailable');
    }
    wss.handleUpgrade(req, socket, head, (ws) => this.connected(ws, auth.auth, url));
  }

  /** The request's token, resolved; an error to answer with when it is refused. */
  private async authenticate(
    req: IncomingMessage,
    url: URL,
  ): Promise<{ auth: AuthContext | null } | { status: number; error: string }> {
    const token = tokenOf(req, url);
    if (!token) return this.options.publicPreview ? { auth: null } : { status: 401, error: 'Missing access token' };
    let auth: AuthContext | null;
    try {
      auth = await this.options.resolve(token);
    } catch (error) {
      return { status: (error as { status?: number }).status ?? 401, error: (error as Error).message };
    }
    if (!auth) return { status: 401, error: 'Invalid access token' };
    if (auth.unconfirmed) return { status: 403, error: 'Your login is missing a confirmed e-mail address' };
    return { auth };
  }

  private async metrics(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const auth = await this.authenticate(req, new URL(req.url ?? '/', 'http://x'));
    const allowed = 'auth' in auth && auth.auth?.owner && auth.auth.scopes.has('admin:read');
    if (!allowed) {
      res.writeHead(403, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'This action is outside the authorized scopes' }));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4', 'cache-control': 'private, no-store' });
    res.end(prometheusText(this.clients.stats()));
  }

  /** One stream as Server-Sent Events, kept open with a heartbeat until the client goes. */
  private async eventSource(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://x');
    const answer = (status: number, error: string) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error }));
    };
    const auth = await this.authenticate(req, url);
    if ('status' in auth) return answer(auth.status, auth.error);
    const stream = url.searchParams.get('stream') ?? STREAM_PATH.exec(url.pathname)?.[1] ?? '';
    const channel = channelFor({
      stream,
      tag: url.searchParams.get('tag') ?? undefined,
      list: url.searchParams.get('list') ?? undefined,
    });
    if ('error' in channel) return answer(channel.status, channel.error);
    const transport = new EventSourceTransport(res);
    const connection = new StreamConnection(transport, auth.auth, this.clients.fellBehind);
    if (!connection.auth && channel.user) return answer(401, 'Missing access token');
    if (!connection.allows(channel)) return answer(403, 'Access token does not have the required scopes');
    if (!(await this.mayStream(connection, channel))) return answer(401, 'Not authorized to stream this list');
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'private, no-store',
      'transfer-encoding': 'chunked',
      'x-accel-buffering': 'no',
    });
    // Mastodon's opening is a lone comment line: with a blank line after it, strict parsers
    // dispatch an empty event and drop the stream.
    res.write(':)\n');
    this.clients.add(connection);
    this.eventStreams.add(res);
    this.options.hub.subscribe(connection, channel);
    const heartbeat = setInterval(() => transport.heartbeat(), HEARTBEAT_MS);
    req.on('close', () => {
      clearInterval(heartbeat);
      this.eventStreams.delete(res);
      this.clients.remove(connection);
    });
  }

  private connected(ws: WebSocket, auth: AuthContext | null, url: URL): void {
    const connection = new StreamConnection(new WebSocketTransport(ws), auth, this.clients.fellBehind);
    (ws as WebSocket & { nestbox?: StreamConnection }).nestbox = connection;
    this.clients.add(connection);
    ws.on('pong', () => {
      connection.alive = true;
    });
    ws.on('close', () => this.clients.remove(connection));
    ws.on('error', () => this.clients.remove(connection));
    // binaryType stays 'nodebuffer': each message arrives as one Buffer.
    ws.on('message', (data) => this.message(connection, (data as Buffer).toString()));
    const legacy = /^\/api\/v1\/streaming\/([a-z:]+)$/.exec(url.pathname)?.[1];
    const stream = url.searchParams.get('stream') ?? legacy;
    if (stream)
      void this.subscribe(connection, {
        stream,
        tag: url.searchParams.get('tag') ?? undefined,
        list: url.searchParams.get('list') ?? undefined,
      });
  }

  private message(connection: StreamConnection, text: string): void {
    let message: { type?: unknown; stream?: unknown; tag?: unknown; list?: unknown };
    try {
      message = JSON.parse(text) as typeof message;
    } catch {
      return connection.error('Invalid JSON', 400);
    }
    if (!message || typeof message !== 'object' || typeof message.stream !== 'string')
      return connection.error('Unknown stream type', 400);
    const request: StreamRequest = {
      stream: message.stream,
      tag: typeof message.tag === 'string' ? message.tag : undefined,
      list: typeof message.list === 'string' ? message.list : undefined,
    };
    if (message.type === 'subscribe') void this.subscribe(connection, request);
    else if (message.type === 'unsubscribe') {
      const channel = channelFor(request);
      if ('key' in channel) this.options.hub.unsubscribe(connection, channel.key);
    } else connection.error('Unknown message type', 400);
  }

  private async subscribe(connection: StreamConnection, request: StreamRequest): Promise<void> {
    const channel = channelFor(request);
    if ('error' in channel) return connection.error(channel.error, channel.status);
    if (!connection.auth && (channel.user || !this.options.publicPreview))
      return connection.error('Missing access token', 401);
    if (!connection.allows(channel)) return connection.error('Access token does not have the required scopes', 403);
    if (!(await this.mayStream(connection, channel)))
      return connection.error('Not authorized to stream this list', 401);
    this.options.hub.subscribe(connection, channel);
  }

  /** A list stream is its owner's alone. */
  private async mayStream(connection: StreamConnection, channel: Channel): Promise<boolean> {
    if (channel.listId === undefined) return true;
    try {
      return connection.accountId !== null && (await this.options.hub.ownsList(connection.accountId, channel.listId));
    } catch (error) {
      this.options.log.warn('list stream check failed', { error: (error as Error).message });
      return false;
    }
  }
}

function tokenOf(req: IncomingMessage, url: URL): string | null {
  const header = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
  if (header) return header[1];
  const query = url.searchParams.get('access_token');
  if (query) return query;
  const protocol = req.headers['sec-websocket-protocol'];
  return protocol ? protocol.split(',')[0].trim() || null : null;
}

const STATUS_TEXT: Record<number, string> = { 401: 'Unauthorized', 404: 'Not Found', 503: 'Service Unavailable' };

export function refuse(socket: Duplex, status: number, message: string): void {
  const body = JSON.stringify({ error: message });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_TEXT[status] ?? 'Forbidden'}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
