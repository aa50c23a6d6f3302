/**
 * npm run bench -- reachability [--runs N] [--seconds S] [--rounds R]
 *
 * The box made reachable in the virtual internet (test/helpers/virtual-internet/, root only): the
 * daemon behind a NAT router with miniupnpd, pebble as the CA, challtestsrv as the public DNS, a
 * dyndns2 provider. Each run enters a new name and times name entered → https://<name>/healthz
 * answering 200 from the internet namespace, beside the ACME order alone (the daemon's own
 * "certificate issued" time: pebble's work and the round trips). Then HTTPS against plain HTTP on
 * one cached answer (/api/v1/instance) with wrk at 16 keep-alive connections, from the box's own
 * namespace, in turn for a few rounds, with the daemon's CPU time per request beside the rates.
 * Target: TLS costs at most 25 % of the throughput. The box logs at its default level (info).
 */
import { execFileSync } from 'node:child_process';
import { parseArgs } from 'node:util';
import type { Bench } from './index.js';
import { cpuMs, percentile, report, round, type Figure } from './stats.js';
import { VirtualHome } from '../../test/helpers/virtual-home/index.js';
import { requireRoot } from '../../test/helpers/virtual-home/netns.js';
import { DYNDNS, VirtualInternet } from '../../test/helpers/virtual-internet/index.js';
import { startReachableBox, type ReachableBox } from '../../test/helpers/virtual-internet/box.js';

const CLIENTS = 16;

async function oneRun(
  box: ReachableBox,
  internet: VirtualInternet,
  name: string,
): Promise<{ totalMs: number; acmeMs: number }> {
  const logsBefore = box.daemon.logs.length;
  let started = performance.now();
  const enter = () => {
    started = performance.now();
    return box.daemon.json(
      '/api/nestbox/v1/reachability',
      box.owner({
        method: 'PUT',
        body: JSON.stringify({
          name,
          dyndns: {
            protocol: 'dyndns2',
            url: `http://${DYNDNS.name}:${DYNDNS.port}/nic/update`,
            username: DYNDNS.user,
            password: DYNDNS.password,
          },
        }),
      }),
    );
  };
  // The run before switched the instance: its social side answers 503 for the moment of the rebuild.
  let put = await enter();
  for (let tries = 0; put.status === 503 && tries < 40; tries++) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    put = await enter();
  }
  if (put.status !== 202) throw new Error(`PUT reachability: ${put.status} ${JSON.stringify(put.body)}`);
  const agent = await internet.agent();
  await box.until(
    `https://${name} from the internet`,
    async () => (await agent.fetch(`https://${name}/healthz`, { timeoutMs: 2000 })).status === 200,
    120_000,
  );
  const totalMs = performance.now() - started;
  const issued = box.daemon.logs.slice(logsBefore).find((line) => line.msg === 'certificate issued');
  return { totalMs, acmeMs: typeof issued?.ms === 'number' ? issued.ms : Number.NaN };
}

interface Throughput {
  rps: number;
  p99Ms: number;
  /** The daemon's CPU time (all threads) per request: steadier than the rate on a shared machine. */
  cpuMsPerRequest: number;
}

function wrkIn(namespace: string, url: string, token: string, seconds: number, pid: number): Throughput {
  const cpuBefore = cpuMs(pid);
  const output = execFileSync(
    'ip',
    [
      'netns',
      'exec',
      namespace,
      'wrk',
      '-t1',
      `-c${CLIENTS}`,
      `-d${seconds}s`,
      '--latency',
      '-H',
      `Authorization: Bearer ${token}`,
      url,
    ],
    { encoding: 'utf8' },
  );
  const cpu = cpuMs(pid) - cpuBefore;
  // A timed-out connection is made again: with TLS that is a full handshake, not what is measured.
  const socketErrors = /Socket errors: (.*)/.exec(output)?.[1];
  if (socketErrors) process.stderr.write(`${url}: socket errors: ${socketErrors}\n`);
  if (/Non-2xx or 3xx responses/.test(output)) throw new Error(`wrk: answers were not 2xx:\n${output}`);
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(output)?.[1] ?? Number.NaN);
  const requests = Number(/(\d+) requests in /.exec(output)?.[1] ?? Number.NaN);
  const line = /^\s*99%\s+([\d.]+)(us|ms|s)\s*$/m.exec(output);
  const p99Ms = line ? Number(line[1]) * (line[2] === 'us' ? 0.001 : line[2] === 's' ? 1000 : 1) : Number.NaN;
  return { rps, p99Ms, cpuMsPerRequest: cpu / requests };
}

/**
 * HTTP and HTTPS in turn, `rounds` times, so that a spell of a busy machine falls on both; the
 * medians of each, and the median of the rounds' own HTTPS/HTTP ratios.
 */
function compare(
  box: ReachableBox,
  namespace: string,
  seconds: number,
  rounds: number,
): { http: Throughput; https: Throughput; rateRatio: number; cpuRatio: number } {
  const runs: Array<{ http: Throughput; https: Throughput }> = [];
  const pid = box.daemon.child.pid!;
  // Unrecorded: the first requests of each kind pay for the JIT and the TLS session set-up code.
  wrkIn(namespace, 'http://127.0.0.1:80/api/v1/instance', box.ownerToken, seconds, pid);
  wrkIn(namespace, 'https://127.0.0.1:443/api/v1/instance', box.ownerToken, seconds, pid);
  for (let turn = 0; turn < rounds; turn++) {
    const http = wrkIn(namespace, 'http://127.0.0.1:80/api/v1/instance', box.ownerToken, seconds, pid);
    const https = wrkIn(namespace, 'https://127.0.0.1:443/api/v1/instance', box.ownerToken, seconds, pid);
    process.stderr.write(
      `round ${turn + 1}/${rounds}: http ${round(http.rps)} req/s (${round(http.cpuMsPerRequest)} ms CPU/req), https ${round(https.rps)} req/s (${round(https.cpuMsPerRequest)} ms CPU/req)\n`,
    );
    runs.push({ http, https });
  }
  const median = (pick: (run: { http: Throughput; https: Throughput }) => number) => percentile(runs.map(pick), 50);
  const side = (key: 'http' | 'https'): Throughput => ({
    rps: median((run) => run[key].rps),
    p99Ms: median((run) => run[key].p99Ms),
    cpuMsPerRequest: median((run) => run[key].cpuMsPerRequest),
  });
  return {
    http: side('http'),
    https: side('https'),
    rateRatio: median((run) => run.https.rps / run.http.rps),
    cpuRatio: median((run) => run.http.cpuMsPerRequest / run.https.cpuMsPerRequest),
  };
}

export const bench: Bench = {
  description:
    'reachability in the virtual internet (root): name entered → reachable over HTTPS beside the ACME order; HTTPS vs HTTP throughput at 16 connections',
  async run(args) {
    const { values } = parseArgs({
      args,
      options: {
        runs: { type: 'string', default: '5' },
        seconds: { type: 'string', default: '4' },
        rounds: { type: 'string', default: '5' },
      },
    });
    const runs = Number(values.runs);
    const seconds = Number(values.seconds);
    const rounds = Number(values.rounds);
    if (!Number.isInteger(rounds) || rounds < 1) throw new Error('--rounds is a positive integer');
    if (!Number.isInteger(runs) || runs < 1) throw new Error('--runs is a positive integer');
    requireRoot('npm run bench -- reachability');
    const home = await VirtualHome.build({ timeScale: 10, homeDhcp: false });
    const totals: number[] = [];
    const acme: number[] = [];
    let measured: ReturnType<typeof compare> | undefined;
    try {
      const internet = await VirtualInternet.build(home);
      try {
        // The box's default log level: the test helper's debug level writes a line per request.
        const box = await startReachableBox(home, internet, { NESTBOX_LOG_LEVEL: 'info' });
        for (let run = 1; run <= runs; run++) {
          const result = await oneRun(box, internet, `run${run}-${Date.now() % 100000}.example.test`);
          totals.push(result.totalMs);
          acme.push(result.acmeMs);
          process.stderr.write(
            `run ${run}/${runs}: reachable in ${round(result.totalMs, 0)} ms (ACME order ${round(result.acmeMs, 0)} ms)\n`,
          );
        }
        // The last run's switch rebuilds the social side after https://<name>/healthz answers: wait
        // for its routes. Then the same app on both listeners, asked from the box's own namespace.
        await box.until('the switched box', async () => (await box.view()).steps.switch.state === 'ok', 30_000);
        await box.until('the rebuilt routes', async () => (await box.daemon.fetch('/api/v1/instance')).ok, 20_000);
        measured = compare(box, home.names.box, seconds, rounds);
      } finally {
        await internet.close();
      }
    } finally {
      await home.close();
    }
    if (!measured) throw new Error('the throughput runs did not finish');
    const { http, https } = measured;
    const figures: Figure[] = [
      { metric: 'name_to_https_p50_ms', value: round(percentile(totals, 50), 0), unit: 'ms', runs },
      { metric: 'acme_order_p50_ms', value: round(percentile(acme, 50), 0), unit: 'ms', runs },
      { metric: 'http_rps', value: round(http.rps, 0), unit: 'req/s', connections: CLIENTS },
      { metric: 'https_rps', value: round(https.rps, 0), unit: 'req/s', connections: CLIENTS },
      { metric: 'http_p99_ms', value: round(http.p99Ms), unit: 'ms' },
      { metric: 'https_p99_ms', value: round(https.p99Ms), unit: 'ms' },
      { metric: 'http_cpu_ms_per_request', value: round(http.cpuMsPerRequest, 3), unit: 'ms' },
      { metric: 'https_cpu_ms_per_request', value: round(https.cpuMsPerRequest, 3), unit: 'ms' },
      {
        metric: 'tls_throughput_cost_pct',
        value: round((1 - measured.rateRatio) * 100, 1),
        unit: '%',
        target: '≤ 25',
        rounds,
      },
      // What TLS adds to the daemon's CPU per request, as a share of the rate it would cost a
      // CPU-bound box: the same question, less swayed by other work on the machine.
      { metric: 'tls_cpu_cost_pct', value: round((1 - measured.cpuRatio) * 100, 1), unit: '%', target: '≤ 25' },
    ];
    report('reachability', figures);
  },
};
