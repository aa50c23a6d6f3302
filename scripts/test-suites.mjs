// Runs the compiled uvu suites (dist/test/**/*.test.js), each in its own process, a few at a time,
// prints each file's output as it finishes, and ends with the plain line "N passed, N failed".
// Filters pick the files by substring (`npm test -- config store`). Lint (scripts/lint.mjs) is one
// more check, run beside the suites: scripts/test.mjs starts it before the build, when a fresh
// clone's sqlite3 compile leaves a core idle.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, setPriority, tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
/** Where the compiled suites are and where their TypeScript is; a test of this runner points both at a folder of its own. */
const DEFAULT_LAYOUT = { tests: join(root, 'dist', 'test'), sources: join(root, 'test') };
const concurrency = Number(process.env.TEST_CONCURRENCY) || Math.max(2, Math.min(4, cpus().length + 1));
// Many suites mostly wait (namespaces, timers, a browser): when the cores sit idle beside the
// suites running, up to this many more start, so a run is bound by CPU rather than by waiting.
const EXTRA_WHEN_IDLE = process.env.TEST_CONCURRENCY ? 0 : cpus().length;
const IDLE_SHARE_TO_ADD = 0.35;
const IDLE_SAMPLE_MS = 1_000;
const FILE_TIMEOUT_MS = Number(process.env.TEST_FILE_TIMEOUT_MS) || 180_000;
// Type-aware ESLint over the whole tree is one long single-threaded job; a busy machine stretches it.
const LINT_TIMEOUT_MS = Number(process.env.TEST_LINT_TIMEOUT_MS) || 600_000;
// Makes an error in a before/after hook visible (uvu itself drops it).
const loudHooks = join(DEFAULT_LAYOUT.tests, 'helpers', 'loud-hooks.js');
// Writes the suite's CPU seconds (its own and its reaped children's) where TEST_CPU_FILE says.
const cpuTime = join(DEFAULT_LAYOUT.tests, 'helpers', 'cpu-time.js');
// Names the test a file was in when it is stopped for outliving FILE_TIMEOUT_MS (SIGTERM first).
const runningTest = join(DEFAULT_LAYOUT.tests, 'helpers', 'running-test.js');
// After that SIGTERM, the time a stopped file gets to print it before SIGKILL.
const STOP_GRACE_MS = 3_000;
// The run's own folder, removed at its end: each suite's CPU figure, and what the suites share
// through TEST_SCRATCH_DIR (the migrated template database, test/helpers/migrated-database.ts).
let scratch = null;
let cpuFiles = 0;
// The run's PostgreSQL cluster: a folder made here and named to every suite; the first suite that
// needs PostgreSQL starts the cluster in it, and the run stops it at its end (a run with no such
// suite never starts it). test/helpers/postgres-cluster.ts.
const postgresHelper = join(DEFAULT_LAYOUT.tests, 'helpers', 'postgres-cluster.js');
let postgres = null;

async function preparePostgres() {
  if (!existsSync(postgresHelper)) return;
  const helper = await import(postgresHelper);
  postgres = { folder: helper.clusterFolder(), variable: helper.CLUSTER_FOLDER_VARIABLE, remove: helper.removeCluster };
}

async function removePostgres() {
  const current = postgres;
  postgres = null;
  if (current) await current.remove(current.folder);
}

function scratchFolder() {
  scratch ??= mkdtempSync(join(tmpdir(), 'nestbox-test-run-'));
  return scratch;
}

/** A fresh file for one suite's CPU figure. */
function cpuFile() {
  return join(scratchFolder(), `cpu-${(cpuFiles += 1)}`);
}

/** CPU seconds a suite wrote to its file, or null (crashed, killed, not Linux). */
function readCpu(path) {
  try {
    const seconds = Number(readFileSync(path, 'utf8'));
    return Number.isFinite(seconds) ? seconds : null;
  } catch {
    return null;
  }
}

/** The TypeScript a compiled test came from: a test whose source is gone (renamed, merged) is not run. */
function sourceOf(compiled, layout) {
  return join(layout.sources, relative(layout.tests, compiled)).replace(/\.js$/, '.ts');
}

function findTests(dir, layout) {
  let out = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (name === 'helpers') continue;
    if (statSync(path).isDirectory()) out = out.concat(findTests(path, layout));
    else if (name.endsWith('.test.js') && existsSync(sourceOf(path, layout))) out.push(path);
  }
  return out;
}

/**
 * The suites that run a second time with TEST_ENGINE=postgres (their daemons and databases on the
 * run's PostgreSQL cluster, test/helpers/daemon-database.ts): `both-engines.txt` beside the
 * sources, one suite a line as its path under test/ (`social/markers.test.ts`), `#` for comments.
 */
function bothEngines(layout) {
  const list = join(layout.sources, 'both-engines.txt');
  if (!existsSync(list)) return new Set();
  const lines = readFileSync(list, 'utf8').split('\n');
  return new Set(lines.map((line) => line.replace(/#.*/, '').trim()).filter(Boolean));
}

/** Each file once on SQLite, and once more on PostgreSQL when the list names it. */
function jobsOf(files, layout) {
  const twice = bothEngines(layout);
  return files.flatMap((file) => {
    const source = relative(layout.sources, sourceOf(file, layout));
    return twice.has(source) ? [{ file }, { file, engine: 'postgres' }] : [{ file }];
  });
}

/** The processes a run has going (suites, and the lint check's process group), for an interrupted run to stop. */
const running = new Set();

/** Signals a process, or a whole group (negative pid); one that has already ended is not an error. */
function signal(pid, name) {
  try {
    process.kill(pid, name);
  } catch (error) {
    if (error.code !== 'ESRCH') throw error;
  }
}

/**
 * On SIGINT or SIGTERM: stops every suite still running and the lint check's group (which a Ctrl-C
 * at the terminal does not reach), says so on the summary line, and exits 130 or 143.
 */
export function stopOnInterrupt() {
  for (const [name, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ])
    process.on(name, async () => {
      for (const child of running) signal(child.detached ? -child.pid : child.pid, 'SIGTERM');
      process.stdout.write(`\n0 passed, 1 failed (interrupted by ${name})\n`);
      await removePostgres().catch(() => undefined);
      process.exit(code);
    });
}

const LINT = join(root, 'scripts', 'lint.mjs');
let lintScript = LINT;

/**
 * What each suite took when a run last recorded it (`--timings`): `suite-times.txt` beside the
 * sources, one suite run a line, its wall and CPU seconds and its name as the runner prints it
 * (`social/markers.test.js (postgres)`). The longest start first, so that a run does not end with
 * one core waiting on a long suite begun last.
 */
const TIMES_FILE = 'suite-times.txt';

function jobName(job, layout) {
  return relative(layout.tests, job.file) + (job.engine ? ` (${job.engine})` : '');
}

function readTimes(layout) {
  const path = join(layout.sources, TIMES_FILE);
  const times = new Map();
  if (!existsSync(path)) return times;
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    const match = /^\s*([\d.]+)\s+([\d.]+|-)\s+(\S.*?)\s*$/.exec(line.replace(/#.*/, ''));
    if (match) times.set(match[3], { wall: Number(match[1]), cpu: match[2] === '-' ? null : Number(match[2]) });
  }
  return times;
}

/**
 * The queue's order: by the last wall time, longest first. A second run on PostgreSQL not recorded
 * yet counts its SQLite run's time; a suite not recorded at all goes first.
 */
function longestFirst(jobs, layout) {
  const times = readTimes(layout);
  const wall = (job) =>
    times.get(jobName(job, layout))?.wall ?? times.get(jobName({ file: job.file }, layout))?.wall ?? Infinity;
  return jobs.sort((a, b) => (wall(a) === wall(b) ? 0 : wall(b) > wall(a) ? 1 : -1));
}

/** Rewrites the times file with this run's figures, keeping those of the suites it did not run. */
function recordTimes(results, layout) {
  const times = readTimes(layout);
  for (const result of results)
    if (result.file !== lintScript)
      times.set(jobName(result, layout), {
        wall: result.ms / 1000,
        cpu: typeof result.cpu === 'number' ? result.cpu : null,
      });
  const lines = [...times]
    .sort(([, a], [, b]) => b.wall - a.wall)
    .map(
      ([name, { wall, cpu }]) =>
        `${wall.toFixed(1).padStart(6)} ${(cpu === null ? '-' : cpu.toFixed(1)).padStart(6)}  ${name}`,
    );
  writeFileSync(
    join(layout.sources, TIMES_FILE),
    '# Wall and CPU seconds of each suite when a run last recorded them (`node scripts/run-tests.mjs --timings`):\n' +
      '# the runner starts the longest first (scripts/test-suites.mjs).\n' +
      lines.join('\n') +
      '\n',
  );
}

/** The per-suite table of `--timings`: the costliest in CPU first, then the sums. */
function printTimings(results, layout, wallMs) {
  const rows = results
    .filter((result) => result.file !== lintScript)
    .map((result) => ({ name: jobName(result, layout), wall: result.ms / 1000, cpu: result.cpu ?? 0 }))
    .sort((a, b) => b.cpu - a.cpu || b.wall - a.wall);
  const sum = (key) => rows.reduce((total, row) => total + row[key], 0);
  const line = (cpu, wall, name) => `${cpu.padStart(7)} ${wall.padStart(7)}  ${name}\n`;
  process.stdout.write(`\nTimings (seconds)\n${line('CPU', 'wall', 'suite')}`);
  for (const row of rows) process.stdout.write(line(row.cpu.toFixed(1), row.wall.toFixed(1), row.name));
  process.stdout.write(line(sum('cpu').toFixed(1), sum('wall').toFixed(1), `${rows.length} suite runs`));
  process.stdout.write(line('', (wallMs / 1000).toFixed(1), 'the run, wall'));
}

/** A run without filters, or one naming `lint`, includes the lint check. */
export function wantsLint(filters) {
  return filters.length === 0 || filters.includes('lint');
}

/**
 * Starts the lint check now; resolves with its outcome (never rejects). Its `stop()` ends it, for a
 * run that fails before the suites begin. With `yielding`, it runs at a lower priority until its
 * `hurry()`: scripts/test.mjs starts it beside sqlite3's compile and TypeScript, which the suites
 * wait for, and lint can wait. Only for root, who can give the priority back (a niced lint on a busy
 * machine would get almost no CPU and reach its timeout).
 */
export function startLint(script = LINT, { yielding = false } = {}) {
  lintScript = script;
  let child = null;
  const yields = yielding && process.getuid?.() === 0;
  const result = runFile(script, (started) => {
    child = started;
    // ESLint and Prettier, started by it later, inherit this.
    if (yields && child.pid) setPriority(child.pid, LINT_NICENESS);
  });
  // Its own process group (see runFile): ESLint and Prettier run as its children.
  result.stop = () => {
    if (child?.pid) signal(-child.pid, 'SIGTERM');
  };
  result.hurry = () => {
    if (yields && child?.pid) prioritizeGroup(child.pid, 0);
  };
  return result;
}

/** While the build runs, lint's niceness (19 is the lowest priority). */
const LINT_NICENESS = 10;

/** Sets the niceness of every process in process group `group` (read from /proc); one that ended is skipped. */
function prioritizeGroup(group, niceness) {
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // After the command name (which may hold spaces): state, parent, process group.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[2]) === group) setPriority(Number(name), niceness);
    } catch {
      // Ended meanwhile.
    }
  }
}

function runFile(file, onSpawn = () => undefined, engine = undefined) {
  const isLint = file === lintScript;
  const args = isLint
    ? [file]
    : ['--enable-source-maps', '--import', loudHooks, '--import', cpuTime, '--import', runningTest, file];
  const cpuPath = isLint ? null : cpuFile();
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(process.execPath, args, {
      cwd: root,
      env: {
        ...process.env,
        NO_COLOR: '1',
        FORCE_COLOR: '0',
        ...(cpuPath && { TEST_CPU_FILE: cpuPath, TEST_SCRATCH_DIR: scratchFolder() }),
        ...(postgres && !isLint && { [postgres.variable]: postgres.folder }),
        ...(engine && { TEST_ENGINE: engine }),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: isLint,
    });
    child.detached = isLint;
    running.add(child);
    onSpawn(child);
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    const timeoutMs = isLint ? LINT_TIMEOUT_MS : FILE_TIMEOUT_MS;
    let killer = null;
    const timer = setTimeout(() => {
      output += `\n[run-tests] ${relative(root, file)} timed out after ${timeoutMs / 1000} s\n`;
      if (isLint) return child.kill('SIGKILL');
      child.kill('SIGTERM');
      killer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
    }, timeoutMs);
    child.on('close', (code, signal) => {
      running.delete(child);
      clearTimeout(timer);
      clearTimeout(killer);
      resolve({ file, engine, code, signal, output, ms: Date.now() - started, cpu: cpuPath && readCpu(cpuPath) });
    });
  });
}

// uvu prints "Total: N", "Passed: N" and "Skipped: N" once per process; lint is one check.
function count(result) {
  if (result.file === lintScript)
    return { passed: result.code === 0 ? 1 : 0, failed: result.code === 0 ? 0 : 1, skipped: 0 };
  const number = (label) => {
    const match = new RegExp(`^\\s*${label}:\\s+(\\d+)`, 'm').exec(result.output);
    return match ? Number(match[1]) : null;
  };
  const total = number('Total');
  const passed = number('Passed');
  const skipped = number('Skipped') ?? 0;
  if (total === null || passed === null) return { passed: 0, failed: 1, skipped: 0 }; // crashed before its summary
  let failed = total - passed - skipped;
  if (result.code !== 0 && failed === 0) failed = 1; // the process failed after its tests passed
  return { passed, failed, skipped };
}

function report(result, totals, layout) {
  const counts = count(result);
  totals.passed += counts.passed;
  totals.failed += counts.failed;
  totals.skipped += counts.skipped;
  const engine = result.engine ? ` (${result.engine})` : '';
  if (counts.failed) totals.failures.push({ name: relative(root, result.file) + engine, output: result.output });
  const name =
    result.file === lintScript ? 'lint (eslint, prettier --check)' : relative(layout.tests, result.file) + engine;
  const cpu = typeof result.cpu === 'number' ? `, CPU ${result.cpu.toFixed(1)} s` : '';
  if (typeof result.cpu === 'number') totals.cpu += result.cpu;
  process.stdout.write(
    `\n── ${name} (${(result.ms / 1000).toFixed(1)} s${cpu})${counts.failed ? ' FAILED' : ''}\n${result.output.trimEnd()}\n`,
  );
}

/** Lines of a failed suite's output repeated at the end, where a log cut to its tail still shows why. */
const FAILURE_TAIL_LINES = 60;

function reportFailures(failures) {
  for (const { name, output } of failures) {
    const lines = output.trimEnd().split('\n');
    const tail = lines.slice(-FAILURE_TAIL_LINES).join('\n');
    const cut = lines.length > FAILURE_TAIL_LINES ? ` (its last ${FAILURE_TAIL_LINES} lines)` : '';
    process.stdout.write(`\n── again, ${name} FAILED${cut}\n${tail}\n`);
  }
  process.stdout.write(`\nFailed files:\n${failures.map(({ name }) => `  ${name}`).join('\n')}\n`);
}

/** Share of the machine's CPU time spent idle since the last call (all cores). */
function idleMeter() {
  const sample = () =>
    cpus().reduce(
      (sum, { times }) => ({
        idle: sum.idle + times.idle,
        total: sum.total + times.idle + times.user + times.nice + times.sys + times.irq,
      }),
      { idle: 0, total: 0 },
    );
  let last = sample();
  return () => {
    const now = sample();
    const share = now.total > last.total ? (now.idle - last.idle) / (now.total - last.total) : 0;
    last = now;
    return share;
  };
}

/**
 * Every second: while the machine was idle for more than IDLE_SHARE_TO_ADD of its CPU time, starts
 * one more suite from the queue, up to EXTRA_WHEN_IDLE beyond the workers. `finish()` stops
 * looking and waits for the ones it started.
 */
function startWhenIdle(queue, run) {
  const idle = idleMeter();
  const started = new Set();
  const timer = setInterval(() => {
    if (idle() < IDLE_SHARE_TO_ADD || started.size >= EXTRA_WHEN_IDLE) return;
    const job = queue.shift();
    if (!job) return;
    const done = run(job).then(() => started.delete(done));
    started.add(done);
  }, IDLE_SAMPLE_MS);
  return {
    async finish() {
      clearInterval(timer);
      while (started.size) await Promise.all(started);
    },
  };
}

/**
 * Runs the suites the filters pick, beside `lint` (a started lint check, or null), prints every
 * result and the summary line, and returns the exit code. `timings`: also prints each suite's CPU
 * and wall seconds in a table and records them in the times file, for the next run's order.
 */
export async function runSuites(filters, lint, layout = DEFAULT_LAYOUT, { timings = false } = {}) {
  const files = findTests(layout.tests, layout)
    .filter((file) => filters.length === 0 || filters.some((f) => relative(layout.tests, file).includes(f)))
    .sort();
  const queue = longestFirst(jobsOf(files, layout), layout);
  const totals = { passed: 0, failed: 0, skipped: 0, failures: [], cpu: 0 };
  const results = [];
  if (queue.length > 0) await preparePostgres();
  const run = (job) =>
    runFile(job.file, undefined, job.engine).then((result) => {
      results.push(result);
      report(result, totals, layout);
    });
  const worker = async () => {
    for (let job = queue.shift(); job; job = queue.shift()) await run(job);
  };
  const started = Date.now();
  const extras = startWhenIdle(queue, run);
  await Promise.all([
    ...Array.from({ length: Math.min(concurrency, queue.length) }, worker),
    lint?.then((result) => report(result, totals, layout)),
  ]);
  await extras.finish();
  if (files.length === 0 && !lint) {
    process.stdout.write('no test files matched\n');
    totals.failed += 1;
  }
  if (timings && results.length > 0) {
    printTimings(results, layout, Date.now() - started);
    recordTimes(results, layout);
  }
  const { passed, failed, skipped, failures } = totals;
  if (failures.length) reportFailures(failures);
  if (scratch) rmSync(scratch, { recursive: true, force: true });
  await removePostgres();
  process.stdout.write(
    `\n${files.length} files${lint ? ' and lint' : ''} in ${((Date.now() - started) / 1000).toFixed(1)} s` +
      ` (suites' CPU ${totals.cpu.toFixed(0)} s)\n`,
  );
  process.stdout.write(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}\n`);
  return failed ? 1 : 0;
}
