#!/usr/bin/env node
// Runs the compiled suites without the set-up (`node scripts/run-tests.mjs WORD…` after
// `npx tsc -p .`); `npm test` (scripts/test.mjs) is the same with the set-up before it.
// `--timings` ends with a table of each suite's CPU and wall seconds and records them in
// test/suite-times.txt, which orders the next runs.
import { runSuites, startLint, stopOnInterrupt, wantsLint } from './test-suites.mjs';

stopOnInterrupt();
const filters = process.argv.slice(2).filter((arg) => !arg.startsWith('-'));
const timings = process.argv.includes('--timings');
process.exit(await runSuites(filters, wantsLint(filters) ? startLint() : null, undefined, { timings }));
