/**
 * One streaming client: its identity, its channels, and how its messages are framed. WebSocket
 * clients get Mastodon's JSON messages ({stream, event, payload}); EventSource clients get
 * `event:` / `data:` lines. Payload objects are JSON-encoded into a string; ids stay strings.
 * A client that does not read what it is sent is cut off once MAX_QUEUED_BYTES wait for it, so
 * its backlog is freed instead of growing without bound.
 */
import type { ServerResponse } from 'node:http';
import type { WebSocket } from 'ws';
import { scopeAllows, type AuthContext } from '../../lib/grants.js';
import { renderJson } from '../render/json-text.js';
import type { Channel } from './channels.js';

/** What may wait in our buffers for one client (beyond what the kernel holds) before it is cut off. */
export const MAX_QUEUED_BYTES = 512 * 1024;

export interface StreamTransport {
  readonly kind: 'websocket' | 'eventsource';
  deliver(stream: string[], event: string, payload: string | undefined): void;
  error(message: string, status: number): void;
  /** Bytes written but not yet taken by the kernel. */
  queuedBytes(): number;
  /** Drops the connection and whatever waits in it. */
  destroy(): void;
}

export class WebSocketTransport implements StreamTransport {
  readonly kind = 'websocket';

  constructor(readonly socket: WebSocket) {}

  queuedBytes(): number {
    return this.socket.bufferedAmount;
  }

  destroy(): void {
    this.socket.terminate();
  }

  private write(message: unknown): void {
    if (this.socket.readyState === this.socket.OPEN) this.socket.send(JSON.stringify(message));
  }

  deliver(stream: string[], event: string, payload: string | undefined): void {
    this.write(payload === undefined ? { stream, event } : { stream, event, payload });
  }

  error(message: string, status: number): void {
    this.write({ error: message, status });
  }
}

export class EventSourceTransport implements StreamTransport {
  readonly kind = 'eventsource';

  constructor(readonly response: ServerResponse) {}

  queuedBytes(): number {
    return this.response.writableLength;
  }

  destroy(): void {
    this.response.destroy();
  }

  deliver(_stream: string[], event: string, payload: string | undefined): void {
    if (!this.response.writableEnded) this.response.write(`event: ${event}\ndata: ${payload ?? ''}\n\n`);
  }

  error(message: string, status: number): void {
    if (!this.response.writableEnded)
      this.response.write(`event: error\ndata: ${JSON.stringify({ error: message, status })}\n\n`);
  }

  heartbeat(): void {
    if (!this.response.writableEnded) this.response.write(':thump\n\n');
  }
}

export class StreamConnection {
  readonly channels = new Map<string, Channel>();
  alive = true;
  /** Set once the client has gone: a subscription checked meanwhile must not bring it back. */
  closed = false;

  constructor(
    readonly transport: StreamTransport,
    readonly auth: AuthContext | null,
    private readonly fellBehind: (connection: StreamConnection) => void,
  ) {}

  get accountId(): string | null {
    return this.auth?.accountId ?? null;
  }

  allows(channel: Channel): boolean {
    if (!this.auth) return !channel.user;
    if (channel.user && !this.auth.accountId) return false;
    return channel.scopes.some((scope) => scopeAllows(this.auth!.scopes, scope));
  }

  send(channel: Channel, event: string, payload?: unknown): void {
    // renderJson: pre-rendered statuses and accounts go in as their stored text.
    if (this.closed) return;
    this.transport.deliver(
      channel.name,
      event,
      payload === undefined ? undefined : typeof payload === 'string' ? payload : renderJson(payload),
    );
    if (this.transport.queuedBytes() > MAX_QUEUED_BYTES) this.fellBehind(this);
  }

  error(message: string, status: number): void {
    this.transport.error(message, status);
  }
}
