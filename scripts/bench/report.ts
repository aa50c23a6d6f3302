/** Shared output of the benchmarks: percentiles, a readable table, one JSON line per figure. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index]!;
}

export function median(values: number[]): number {
  return percentile(values, 50);
}

export function printTable(title: string, rows: Array<Record<string, string | number>>): void {
  const columns = Object.keys(rows[0] ?? {});
  const cell = (value: string | number) => (typeof value === 'number' ? round(value).toString() : value);
  const widths = columns.map((column) => Math.max(column.length, ...rows.map((row) => cell(row[column] ?? '').length)));
  const line = (values: string[]) => values.map((value, i) => value.padEnd(widths[i]!)).join('  ');
  process.stdout.write(`\n${title}\n${line(columns)}\n${line(widths.map((w) => '-'.repeat(w)))}\n`);
  for (const row of rows) process.stdout.write(line(columns.map((column) => cell(row[column] ?? ''))) + '\n');
  process.stdout.write('\n');
}

export function printFigure(bench: string, metric: string, value: number, extra: Record<string, unknown> = {}): void {
  process.stdout.write(JSON.stringify({ bench, metric, value: round(value), ...extra }) + '\n');
}

function round(value: number): number {
  return Math.abs(value) >= 100 ? Math.round(value) : Math.round(value * 100) / 100;
}
