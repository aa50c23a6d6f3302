import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Cron } from 'croner';
import { Jobs } from '../../daemon/lifecycle/jobs.js';
import { CRON_OPTIONS, isCronExpression } from '../../daemon/lifecycle/cron-expression.js';
import { Logger, silentLogger } from '../../daemon/log/logger.js';

const log = silentLogger;

test('jobs added before start are scheduled by start, later ones at once; stop ends them all', async () => {
  const jobs = new Jobs(log);
  let runs = 0;
  jobs.add('early', '* * * * * *', async () => {
    runs += 1;
  });
  jobs.add('never', 'off', async () => undefined);
  const scheduled = (name: string) => jobs.isScheduled(name);
  assert.not.ok(scheduled('early'), 'not scheduled before start');
  assert.equal(
    jobs.list().map((job) => job.name),
    ['early'],
  );
  jobs.start();
  assert.ok(scheduled('early'));
  jobs.add('late', '0 0 1 1 *', async () => undefined);
  assert.ok(scheduled('late'), 'added after start: scheduled at once');
  assert.throws(() => jobs.add('early', '* * * * *', async () => undefined), /already scheduled/);
  const deadline = Date.now() + 3000;
  while (runs === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  assert.ok(runs >= 1, 'the every-second job ran');
  assert.is(jobs.list().find((job) => job.name === 'early')?.runs, runs);
  await jobs.stop();
  assert.not.ok(scheduled('early') || scheduled('late'));
  const after = runs;
  await new Promise((resolve) => setTimeout(resolve, 1500));
  assert.is(runs, after, 'no run after stop');
});

test('a job runs at its next matching time, never overlapping itself', async () => {
  const jobs = new Jobs(log);
  let running = 0;
  let most = 0;
  let runs = 0;
  jobs.add('slow', '* * * * * *', async () => {
    runs += 1;
    running += 1;
    most = Math.max(most, running);
    await new Promise((resolve) => setTimeout(resolve, 2500));
    running -= 1;
  });
  jobs.start();
  const deadline = Date.now() + 6000;
  while (runs < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  await jobs.stop();
  assert.ok(runs >= 2, `ran again after the first run ended (${runs})`);
  assert.is(most, 1, 'never two runs at once');
  assert.is(jobs.list().length, 0);
});

test('a day of month and a day of week must both match, as node-cron read them', () => {
  assert.ok(isCronExpression('0 4 1 * mon'));
  assert.ok(isCronExpression('*/10 * * * * *'), 'six fields: seconds first');
  for (const bad of ['nightly', '* * * *', '61 * * * *', '0 0 1 1 * 2030']) assert.not.ok(isCronExpression(bad), bad);
  // 2027-02-01 is a Monday, 2027-03-01 a Monday too; 2027-01-04 is a Monday but not the 1st.
  const next = new Cron('0 4 1 * mon', { ...CRON_OPTIONS, paused: true }).nextRuns(2, new Date(2027, 0, 2));
  assert.equal(
    next.map((date) => [date.getFullYear(), date.getMonth() + 1, date.getDate(), date.getHours()]),
    [
      [2027, 2, 1, 4],
      [2027, 3, 1, 4],
    ],
  );
});

test('a run that meets an outage is one warning with its reason; any other failure is an error', async () => {
  const lines: Array<Record<string, unknown>> = [];
  const recording = new Logger('debug', {}, (line) => lines.push(JSON.parse(line) as Record<string, unknown>));
  const lost = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
  const jobs = new Jobs(recording, { outage: (error) => (error === lost ? 'the database does not answer' : null) });
  jobs.add('outage', '* * * * * *', () => Promise.reject(lost));
  jobs.add('fault', '* * * * * *', () => Promise.reject(new TypeError('a bug')));
  jobs.start();
  const failures = (name: string) => jobs.list().find((job) => job.name === name)?.failures ?? 0;
  const deadline = Date.now() + 3000;
  while ((failures('outage') === 0 || failures('fault') === 0) && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 50));
  await jobs.stop();
  const of = (job: string) => lines.filter((line) => line.job === job);
  assert.ok(of('outage').length >= 1, 'the outage was logged');
  for (const line of of('outage')) {
    assert.equal([line.level, line.msg, line.reason], ['warn', 'job did not run', 'the database does not answer']);
    assert.not.ok('error' in line, 'no stack trace for an outage');
  }
  assert.ok(of('fault').length >= 1, 'the fault was logged');
  for (const line of of('fault')) assert.equal([line.level, line.msg], ['error', 'job failed']);
});

test.run();
