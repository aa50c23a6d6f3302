/** Small helpers shared by the benchmarks: percentiles, CPU time, the JSON figure lines and a table. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index];
}

/**
 * CPU time (user and system, ms) a process has used, all its threads, or one thread: steadier than
 * wall-clock figures when other work shares the machine.
 */
export function cpuMs(pid: number, thread?: number): number {
  const stat =
    thread === undefined
      ? join('/proc', String(pid), 'stat')
      : join('/proc', String(pid), 'task', String(thread), 'stat');
  const fields = readFileSync(stat, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/**
 * Time (ms) a thread has spent runnable but waiting for a CPU (the kernel's schedstat): on a shared
 * machine, the part of a request's latency that is the scheduler's, not the daemon's work.
 */
export function runQueueWaitMs(pid: number, thread = pid): number {
  const fields = readFileSync(join('/proc', String(pid), 'task', String(thread), 'schedstat'), 'utf8').split(' ');
  return Number(fields[1]) / 1e6;
}

export function round(value: number, digits = 2): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

export interface Figure {
  metric: string;
  value: number;
  /** Shown in the table, e.g. "≤ 50". */
  target?: string;
  unit?: string;
  [extra: string]: unknown;
}

/** Prints the table, then one JSON line per figure. */
export function report(bench: string, figures: Figure[]): void {
  const width = Math.max(...figures.map((f) => f.metric.length), 6);
  const lines = [`${'metric'.padEnd(width)}  ${'value'.padStart(10)}  unit     target`];
  for (const f of figures)
    lines.push(
      `${f.metric.padEnd(width)}  ${String(f.value).padStart(10)}  ${(f.unit ?? '').padEnd(7)}  ${f.target ?? ''}`,
    );
  process.stdout.write(lines.join('\n') + '\n');
  for (const { target: _target, unit: _unit, ...figure } of figures)
    process.stdout.write(JSON.stringify({ bench, ...figure }) + '\n');
}
