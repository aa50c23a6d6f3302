import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { CRASH_EXIT_CODE } from '../../daemon/lifecycle/crash.js';
import { DIST } from '../helpers/paths.js';

function runCrashing(body: string) {
  const crash = pathToFileURL(join(DIST, 'daemon/lifecycle/crash.js')).href;
  const logger = pathToFileURL(join(DIST, 'daemon/log/logger.js')).href;
  const script = `
    const { installCrashHandlers } = await import(${JSON.stringify(crash)});
    const { Logger } = await import(${JSON.stringify(logger)});
    installCrashHandlers(new Logger('info'));
    ${body}
    setTimeout(() => {}, 5000);
  `;
  return spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 10_000 });
}

test('an uncaught exception is logged as JSON and exits non-zero so systemd restarts the daemon', () => {
  const result = runCrashing(`setTimeout(() => { throw new Error('kaboom'); }, 10);`);
  assert.is(result.status, CRASH_EXIT_CODE);
  const line = JSON.parse(result.stdout.trim().split('\n').pop()!);
  assert.is(line.level, 'error');
  assert.is(line.msg, 'uncaught exception; exiting');
  assert.is(line.error.message, 'kaboom');
});

test('an unhandled rejection is treated the same way', () => {
  const result = runCrashing(`Promise.reject(new Error('lost promise'));`);
  assert.is(result.status, CRASH_EXIT_CODE);
  assert.match(result.stdout, /lost promise/);
});

test.run();
