/** Benchmark and fuzz output: a readable table, then one JSON line per figure. */
export interface Figure {
  metric: string;
  value: number;
  unit?: string;
  [extra: string]: unknown;
}

export function report(bench: string, figures: Figure[]): void {
  const width = Math.max(...figures.map((f) => f.metric.length), 6);
  process.stdout.write(`\n${'metric'.padEnd(width)}  value\n${'-'.repeat(width)}  ${'-'.repeat(12)}\n`);
  for (const f of figures)
    process.stdout.write(`${f.metric.padEnd(width)}  ${round(f.value)}${f.unit ? ` ${f.unit}` : ''}\n`);
  process.stdout.write('\n');
  for (const { unit: _unit, ...f } of figures)
    process.stdout.write(JSON.stringify({ bench, ...f, value: round(f.value) }) + '\n');
}

export function round(value: number): number {
  return Math.abs(value) >= 100 ? Math.round(value) : Number(value.toPrecision(3));
}

export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}
