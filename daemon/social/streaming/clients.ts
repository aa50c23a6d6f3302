/**
 * The streaming clients connected now: what is queued for them, and the cut-off of a client that
 * fell behind (its socket destroyed, its backlog freed, its subscriptions dropped from the hub).
 */
import type { Logger } from '../../log/logger.js';
import type { StreamConnection } from './connection.js';
import type { StreamHub } from './hub.js';

export interface StreamingStats {
  clients: { websocket: number; eventsource: number };
  /** Bytes waiting in our buffers for all clients together. */
  queuedBytes: number;
  /** Clients cut off for falling behind, since start. */
  slowClientsClosed: number;
}

export class StreamClients {
  private readonly connected = new Set<StreamConnection>();
  private slowClientsClosed = 0;

  constructor(
    private readonly hub: StreamHub,
    private readonly log: Logger,
  ) {}

  add(connection: StreamConnection): void {
    if (!connection.closed) this.connected.add(connection);
  }

  remove(connection: StreamConnection): void {
    this.connected.delete(connection);
    this.hub.drop(connection);
  }

  readonly fellBehind = (connection: StreamConnection): void => {
    if (connection.closed) return;
    const queued = connection.transport.queuedBytes();
    this.remove(connection);
    connection.transport.destroy();
    this.slowClientsClosed++;
    this.log.warn('streaming client fell behind; disconnected', {
      transport: connection.transport.kind,
      queued_bytes: queued,
    });
  };

  stats(): StreamingStats {
    const stats: StreamingStats = {
      clients: { websocket: 0, eventsource: 0 },
      queuedBytes: 0,
      slowClientsClosed: this.slowClientsClosed,
    };
    for (const connection of this.connected) {
      stats.clients[connection.transport.kind]++;
      stats.queuedBytes += connection.transport.queuedBytes();
    }
    return stats;
  }
}
