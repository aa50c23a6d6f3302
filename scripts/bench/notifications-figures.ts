/**
 * The notifications benchmark's figures (notifications.ts): what each endpoint measured per
 * database and row count, and their table on stdout.
 */
import type { BenchDatabase } from './postgres-cluster.js';

export interface Latency {
  p50: number;
  p99: number;
}
/**
 * cpuMs: the daemon's CPU time (all its threads) per request at 16 clients; steadier than rps on a
 * shared machine. mainMs: the main thread's share, which alone caps throughput at 1000 / mainMs.
 */
export interface Endpoint {
  latency: Latency;
  rps: number;
  cpuMs: number;
  mainMs: number;
  /** PostgreSQL's server CPU time per request at 16 clients (its backends' work), null on SQLite. */
  serverMs: number | null;
  /** Millions of instructions per request at one client (perf stat), null without perf. */
  instructionsM: number | null;
}
/** Per row count: each endpoint uncached (primary) and cached (secondary). */
export interface Figures {
  database: BenchDatabase;
  rows: number;
  seedMs: number;
  rssMb: number;
  uncached: { list: Endpoint; unread: Endpoint };
  cached: { list: Endpoint; unread: Endpoint };
}
export type Mode = 'uncached' | 'cached';
export type Name = 'list' | 'unread';
/** One round's figures for one target. */
export type Round = Record<Mode, Record<Name, Endpoint>>;
export const MODES: Mode[] = ['uncached', 'cached'];
export const NAMES: Name[] = ['list', 'unread'];
export const METRIC: Record<Name, string> = { list: 'v2_list', unread: 'unread_count' };

export const round = (value: number) => Math.round(value * 100) / 100;

export function printTable(results: Figures[]): void {
  const header = [
    'database',
    'rows',
    'responses',
    'list p50',
    'list p99',
    'list rps@16',
    'list cpu ms/req',
    'list main ms/req',
    'list server ms/req',
    'unread p50',
    'unread p99',
    'unread rps@16',
    'unread cpu ms/req',
    'unread server ms/req',
    'RSS MB',
    'seed ms',
  ];
  const lines = results.flatMap((r) =>
    MODES.map((mode) => {
      const { list, unread } = r[mode];
      return [
        r.database,
        String(r.rows),
        mode === 'uncached' ? 'uncached (primary)' : 'cached (secondary)',
        ...[
          list.latency.p50,
          list.latency.p99,
          list.rps,
          list.cpuMs,
          list.mainMs,
          list.serverMs,
          unread.latency.p50,
          unread.latency.p99,
          unread.rps,
          unread.cpuMs,
          unread.serverMs,
          r.rssMb,
          r.seedMs,
        ].map((v) => (v === null ? '-' : String(round(v)))),
      ];
    }),
  );
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((line) => line[i].length)));
  const format = (cells: string[]) => cells.map((cell, i) => cell.padStart(widths[i])).join('  ');
  process.stdout.write(`${format(header)}\n${lines.map(format).join('\n')}\n`);
}
