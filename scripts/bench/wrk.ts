/**
 * Throughput with wrk (Debian package `wrk`), when it is installed. A Node client on the same two
 * cores takes a sizeable share of the machine at these rates; wrk a fraction of it, as in
 * docs/performance-floors.md, so the daemon gets the machine.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../../test/helpers/paths.js';

/** How each request's URL differs from the last: not at all, a falling max_id, or an unused parameter. */
export type Vary = 'none' | 'max_id' | 'param';

// Distinct 19-digit max_ids, always above every real id (snowflakes are ~1.2e17 now).
const SCRIPT = `
local n = 0
local base = os.getenv("WRK_PATH")
local vary = os.getenv("WRK_VARY")
local sep = string.find(base, "?", 1, true) and "&" or "?"
wrk.headers["Authorization"] = "Bearer " .. os.getenv("WRK_TOKEN")
request = function()
  n = n + 1
  local path = base
  if vary == "max_id" then path = base .. sep .. "max_id=46116860184" .. string.format("%08d", 99999999 - n)
  elseif vary == "param" then path = base .. sep .. "bench_request=" .. n end
  return wrk.format("GET", path)
end
`;

export function wrkInstalled(): boolean {
  return spawnSync('wrk', ['--version'], { stdio: 'ignore' }).error === undefined;
}

export interface WrkOptions {
  url: string;
  path: string;
  token: string;
  vary: Vary;
  clients: number;
  seconds: number;
}

/** Requests per second over `seconds` with `clients` connections; throws on any non-2xx answer. */
export function wrkThroughput(options: WrkOptions): number {
  return wrkRun(options).rps;
}

/** Requests per second, the requests sent and wrk's latency percentiles (ms); throws on any non-2xx answer. */
export function wrkRun(options: WrkOptions): { rps: number; requests: number; p50Ms: number; p99Ms: number } {
  const dir = tempDir('nestbox-wrk-');
  try {
    const script = join(dir.path, 'requests.lua');
    writeFileSync(script, SCRIPT);
    const output = execFileSync(
      'wrk',
      ['-t1', `-c${options.clients}`, `-d${options.seconds}s`, '--latency', '-s', script, options.url],
      {
        encoding: 'utf8',
        env: { ...process.env, WRK_PATH: options.path, WRK_VARY: options.vary, WRK_TOKEN: options.token },
      },
    );
    const failed = /Non-2xx or 3xx responses: (\d+)/.exec(output);
    if (failed) throw new Error(`wrk: ${failed[1]} answers were not 2xx`);
    const rps = /Requests\/sec:\s+([\d.]+)/.exec(output);
    if (!rps) throw new Error(`wrk printed no rate:\n${output}`);
    const requests = Number(/(\d+) requests in /.exec(output)?.[1] ?? Number.NaN);
    return { rps: Number(rps[1]), requests, p50Ms: latencyMs(output, '50%'), p99Ms: latencyMs(output, '99%') };
  } finally {
    dir.remove();
  }
}

/** One line of wrk's latency distribution ("  50%  1.23ms"), in milliseconds. */
function latencyMs(output: string, percent: string): number {
  const line = new RegExp(`^\\s*${percent}\\s+([\\d.]+)(us|ms|s)\\s*$`, 'm').exec(output);
  if (!line) return Number.NaN;
  const value = Number(line[1]);
  return line[2] === 'us' ? value / 1000 : line[2] === 's' ? value * 1000 : value;
}
