/** Figures for benchmarks: percentiles, a readable table, and one JSON line per figure. */
export interface Figure { bench: string; metric: string; value: number; [extra: string]: unknown }

export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index]!;
}

export function round(value: number, digits = 2): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

/** Prints the table (to stderr, so stdout stays machine-readable) and the JSON lines (stdout). */
export function report(figures: Figure[]): void {
  const width = Math.max(...figures.map((f) => f.metric.length), 6);
  process.stderr.write(`\n${'metric'.padEnd(width)}  value\n${'-'.repeat(width)}  ------\n`);
  for (const figure of figures) process.stderr.write(`${figure.metric.padEnd(width)}  ${figure.value}\n`);
  for (const figure of figures) process.stdout.write(`${JSON.stringify(figure)}\n`);
}
