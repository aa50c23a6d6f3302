/**
 * For a failed run of the namespace scenarios: `TEST_SCENARIO_LOGS=DIR` keeps each suite's daemon log
 * and the home's timeline in `DIR/<suite>.log`, one file per suite, so suites running side by side
 * do not write over each other's.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';

export function keepScenarioLog(daemonLogs: readonly unknown[], timeline: string): void {
  const folder = process.env.TEST_SCENARIO_LOGS;
  if (!folder) return;
  mkdirSync(folder, { recursive: true });
  const suite = basename(process.argv[1] ?? 'suite', '.js');
  const lines = [...daemonLogs.map((line) => JSON.stringify(line)), timeline];
  writeFileSync(join(folder, `${suite}.log`), lines.join('\n') + '\n');
}
