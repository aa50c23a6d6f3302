import { test } from 'uvu';
import * as assert from 'uvu/assert';
import cron from 'node-cron';
import { Jobs } from '../../daemon/lifecycle/jobs.js';
import { silentLogger } from '../../daemon/log/logger.js';

const log = silentLogger;
const scheduled = (name: string) => [...cron.getTasks().values()].some((task) => task.name === name);

test('jobs added before start are scheduled by start, later ones at once; stop ends them all', async () => {
  const jobs = new Jobs(log);
  let runs = 0;
  jobs.add('early', '* * * * * *', async () => {
    runs += 1;
  });
  jobs.add('never', 'off', async () => undefined);
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
});

test.run();
