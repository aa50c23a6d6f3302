/** One WebSocket client: its identity, its channels, and the message framing Mastodon clients expect. */
import type { WebSocket } from 'ws';
import type { AuthContext } from '../../http/auth.js';
import { scopeAllows } from '../../http/auth.js';
import type { Channel } from './channels.js';

export class StreamConnection {
  readonly channels = new Map<string, Channel>();
  alive = true;

  constructor(readonly socket: WebSocket, readonly auth: AuthContext | null) {}

  get accountId(): string | null {
    return this.auth?.accountId ?? null;
  }

  allows(channel: Channel): boolean {
    if (!this.auth) return !channel.user;
    if (channel.user && !this.auth.accountId) return false;
    return channel.scopes.some((scope) => scopeAllows(this.auth!.scopes, scope));
  }

  /** `payload` is sent as Mastodon does: objects JSON-encoded into a string, ids as plain strings. */
  send(channel: Channel, event: string, payload?: unknown): void {
    if (this.socket.readyState !== this.socket.OPEN) return;
    const message: Record<string, unknown> = { stream: channel.name, event };
    if (payload !== undefined) message.payload = typeof payload === 'string' ? payload : JSON.stringify(payload);
    this.socket.send(JSON.stringify(message));
  }

  error(message: string, status: number): void {
    if (this.socket.readyState === this.socket.OPEN) this.socket.send(JSON.stringify({ error: message, status }));
  }
}
