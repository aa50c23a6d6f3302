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

/** Requests per second over `seconds` with `clients` connections; throws on any non-2xx answer. */
export function wrkThroughput(options: {
  url: string;
  path: string;
  token: string;
  vary: Vary;
  clients: number;
  seconds: number;
}): number {
  const dir = tempDir('nestbox-wrk-');
  try {
    const script = join(dir.path, 'requests.lua');
    writeFileSync(script, SCRIPT);
    const output = execFileSync(
      'wrk',
      ['-t1', `-c${options.clients}`, `-d${options.seconds}s`, '-s', script, options.url],
      {
        encoding: 'utf8',
        env: { ...process.env, WRK_PATH: options.path, WRK_VARY: options.vary, WRK_TOKEN: options.token },
      },
    );
    const failed = /Non-2xx or 3xx responses: (\d+)/.exec(output);
    if (failed) throw new Error(`wrk: ${failed[1]} answers were not 2xx`);
    const rps = /Requests\/sec:\s+([\d.]+)/.exec(output);
    if (!rps) throw new Error(`wrk printed no rate:\n${output}`);
    return Number(rps[1]);
  } finally {
    dir.remove();
  }
}
