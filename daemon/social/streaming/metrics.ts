/** The streaming server's figures in Prometheus' text exposition format (version 0.0.4). */
import { memoryUsage } from 'node:process';
import type { StreamingStats } from './clients.js';

export function prometheusText(stats: StreamingStats): string {
  return [
    '# HELP nestbox_streaming_clients Streaming clients connected now.',
    '# TYPE nestbox_streaming_clients gauge',
    `nestbox_streaming_clients{type="websocket"} ${stats.clients.websocket}`,
    `nestbox_streaming_clients{type="eventsource"} ${stats.clients.eventsource}`,
    '# HELP nestbox_streaming_queued_bytes Bytes waiting for streaming clients in the daemon.',
    '# TYPE nestbox_streaming_queued_bytes gauge',
    `nestbox_streaming_queued_bytes ${stats.queuedBytes}`,
    '# HELP nestbox_streaming_slow_clients_closed_total Clients disconnected for falling behind.',
    '# TYPE nestbox_streaming_slow_clients_closed_total counter',
    `nestbox_streaming_slow_clients_closed_total ${stats.slowClientsClosed}`,
    '# HELP process_resident_memory_bytes Resident memory size in bytes.',
    '# TYPE process_resident_memory_bytes gauge',
    `process_resident_memory_bytes ${memoryUsage.rss()}`,
    '',
  ].join('\n');
}
