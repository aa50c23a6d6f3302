/** Shared by the benchmarks: percentiles, and the report (a table, then one JSON line per figure). */
export interface Figure {
  metric: string;
  value: number;
  unit?: string;
  [extra: string]: unknown;
}

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

export function round(value: number, digits = 2): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}

export function report(bench: string, figures: readonly Figure[]): void {
  const width = Math.max(...figures.map((f) => f.metric.length), 6);
  console.log(`\n${bench}`);
  console.log(`${'metric'.padEnd(width)}  value`);
  for (const figure of figures) console.log(`${figure.metric.padEnd(width)}  ${figure.value}${figure.unit ? ` ${figure.unit}` : ''}`);
  console.log('');
  for (const { unit: _unit, ...figure } of figures) console.log(JSON.stringify({ bench, ...figure }));
}
