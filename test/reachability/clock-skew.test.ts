/**
 * A box whose clock is a day ahead (root, in the virtual internet): the daemon runs under
 * libfaketime (+1 day; timers on the real monotonic clock), as a Pi without a real-time clock may
 * start. pebble's certificates last 30 hours, so on the box's own clock a fresh certificate is
 * already past two thirds of its life; read on the certificate authority's clock (learnt from the
 * certificate's notBefore) it is not, and the box keeps the one certificate it got instead of
 * asking for another at every cycle (every 3 s here), and says that its clock is off.
 */
import { existsSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { requirePackage } from '../helpers/system-packages.js';
import {
  NAME,
  box,
  enterName,
  internet,
  until,
  useReachabilityScenario,
  view,
} from '../helpers/virtual-internet/scenario.js';

const DAY_MS = 24 * 3600_000;
const CERTIFICATE_SECONDS = 30 * 3600;

/** libfaketime's preload library (Debian's faketime package brings it). */
function libfaketime(): string {
  requirePackage(['faketime']);
  const found = ['x86_64-linux-gnu', 'aarch64-linux-gnu', 'arm-linux-gnueabihf']
    .map((arch) => `/usr/lib/${arch}/faketime/libfaketime.so.1`)
    .find((path) => existsSync(path));
  if (!found) throw new Error('libfaketime.so.1 not found: apt-get install faketime');
  return found;
}

useReachabilityScenario(
  CERTIFICATE_SECONDS,
  {},
  { LD_PRELOAD: libfaketime(), FAKETIME: '+1d', FAKETIME_DONT_FAKE_MONOTONIC: '1' },
);

/** The flow's cycles so far (a debug line each). */
const cycles = () => box.daemon.logs.filter((line) => line.msg === 'reachability cycle').length;

/** The daemon's log lines that say a certificate came from the CA. */
const issued = () =>
  box.daemon.logs.filter((line) => line.msg === 'certificate issued' || line.msg === 'certificate renewed');

test("the daemon's clock is a day ahead of the test's", async () => {
  const answer = await box.daemon.json('/healthz');
  const boxTime = Date.parse(answer.headers.get('date') ?? '');
  assert.ok(boxTime - Date.now() > DAY_MS - 60_000, `the box says ${answer.headers.get('date')}`);
});

test("a day ahead: one certificate, kept for the cycles that follow, and the step says the box's clock is off", async () => {
  await enterName(true);
  const done = await until(
    'switched to https://<name>',
    async () => ((await view()).steps.switch.state === 'ok' ? view() : undefined),
    90_000,
  );
  assert.is(done.public_url, `https://${NAME}`);
  assert.is(issued().length, 1);
  const notAfter = done.certificate!.not_after;
  // On the box's clock (a day ahead) the 30-hour certificate is past two thirds of its life.
  assert.ok(Date.now() + DAY_MS > Date.parse(notAfter) - (CERTIFICATE_SECONDS * 1000) / 3);
  assert.match(
    done.steps.certificate.detail!,
    /the box's clock is at least 23 hours ahead of the certificate authority's: check the box's time/,
  );
  const skew = box.daemon.logs.find((line) => line.msg === 'clock off') as { skew_ms?: number } | undefined;
  assert.ok(skew?.skew_ms && Math.abs(skew.skew_ms - (DAY_MS - 3600_000)) < 5 * 60_000, JSON.stringify(skew));

  // Five cycles (one every 3 s), waited for rather than slept through: none asks the CA again.
  const cyclesBefore = cycles();
  await until('five more reachability cycles', async () => cycles() >= cyclesBefore + 5, 30_000);
  assert.is(issued().length, 1, JSON.stringify(issued()));
  const after = await view();
  assert.is(after.certificate?.not_after, notAfter);
  assert.is(after.steps.certificate.state, 'ok');
  assert.is(after.steps.switch.state, 'ok');
  // The certificate works for a client on the internet whose clock is right.
  const answer = await (await internet.agent()).fetch(`https://${NAME}/api/v2/instance`);
  assert.is(answer.status, 200);
});

test.run();
