/**
 * npm run bench -- durability [--seconds S] [--clients C] [--rounds R] [--dir DIR] [--sync-delay-ms D]:
 * what `synchronous = FULL` costs against NORMAL (WAL) when posting statuses through the API of the
 * real daemon, C clients at once for S seconds per run, the two levels interleaved R times (this
 * machine's speed swings). First the raw latency of a 4 KiB append + fdatasync in DIR (default: the
 * temp dir; point it at the storage to judge, e.g. an SD card). Then the same posting runs on
 * storage whose every fsync/fdatasync takes D ms more (an LD_PRELOAD shim, compiled with cc):
 * what a slow-syncing SD card does to each level.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, fdatasyncSync, mkdtempSync, openSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../../daemon/config.js';
import { AdminTool } from '../../daemon/social/admin.js';
import { startDaemon } from '../../test/helpers/daemon.js';
import { tempDir } from '../../test/helpers/paths.js';
import type { Bench } from './index.js';
import { percentile, report, round, type Figure } from './stats.js';

const SHIM = `
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <time.h>
static void slow(void) {
  static long us = -1;
  if (us < 0) { const char *v = getenv("BENCH_SYNC_DELAY_US"); us = v ? atol(v) : 0; }
  struct timespec t = { us / 1000000, (us % 1000000) * 1000 };
  nanosleep(&t, 0);
}
int fsync(int fd) { static int (*real)(int); if (!real) real = dlsym(RTLD_NEXT, "fsync"); slow(); return real(fd); }
int fdatasync(int fd) { static int (*real)(int); if (!real) real = dlsym(RTLD_NEXT, "fdatasync"); slow(); return real(fd); }
`;

function fsyncLatency(dir: string, count = 300): number[] {
  const path = join(dir, 'fsync-probe');
  const fd = openSync(path, 'w');
  const block = Buffer.alloc(4096, 7);
  const samples: number[] = [];
  try {
    for (let i = 0; i < count; i++) {
      writeSync(fd, block);
      const started = performance.now();
      fdatasyncSync(fd);
      samples.push(performance.now() - started);
    }
  } finally {
    closeSync(fd);
  }
  return samples;
}

function buildShim(dir: string): string {
  const source = join(dir, 'sync-delay.c');
  const library = join(dir, 'sync-delay.so');
  writeFileSync(source, SHIM);
  execFileSync('cc', ['-shared', '-fPIC', '-O2', '-o', library, source, '-ldl']);
  return library;
}

interface Run {
  rate: number;
  p50: number;
  p99: number;
  posts: number;
}

async function postingRun(
  dir: string,
  synchronous: string,
  seconds: number,
  clients: number,
  extraEnv: Record<string, string>,
): Promise<Run> {
  const path = mkdtempSync(join(dir, 'nestbox-bench-durability-'));
  const data = { path, remove: () => rmSync(path, { recursive: true, force: true }) };
  const daemon = await startDaemon({
    dataDir: data.path,
    env: {
      NESTBOX_LOG_LEVEL: 'info',
      NESTBOX_SQLITE_SYNCHRONOUS: synchronous,
      NESTBOX_BACKUP_SCHEDULE: 'off',
      ...extraEnv,
    },
  });
  try {
    const admin = await AdminTool.open(
      loadConfig({ env: { NESTBOX_DATA_DIR: data.path, NESTBOX_BASE_URL: daemon.url } }),
    );
    const tokens: string[] = [];
    for (let i = 0; i < clients; i++) {
      await admin.createAccount({
        username: `poster${i}`,
        email: `poster${i}@bench.test`,
        password: `pw-poster-${i}-123`,
      });
      tokens.push((await admin.token({ username: `poster${i}`, scopes: 'write' })).accessToken);
    }
    await admin.close();
    const samples: number[] = [];
    const deadline = performance.now() + seconds * 1000;
    const started = performance.now();
    await Promise.all(
      tokens.map(async (token, client) => {
        for (let n = 0; performance.now() < deadline; n++) {
          const begin = performance.now();
          const res = await daemon.fetch('/api/v1/statuses', {
            method: 'POST',
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
            body: JSON.stringify({ status: `bench post ${client}-${n} about durability on small boxes` }),
          });
          await res.arrayBuffer();
          if (res.status !== 200) throw new Error(`post answered ${res.status}`);
          samples.push(performance.now() - begin);
        }
      }),
    );
    const elapsed = (performance.now() - started) / 1000;
    return {
      rate: samples.length / elapsed,
      p50: percentile(samples, 50),
      p99: percentile(samples, 99),
      posts: samples.length,
    };
  } finally {
    await daemon.stop();
    data.remove();
  }
}

function median(values: number[]): number {
  return percentile(values, 50);
}

async function compare(
  label: string,
  dir: string,
  options: { seconds: number; clients: number; rounds: number },
  env: Record<string, string>,
): Promise<Figure[]> {
  const runs: Record<string, Run[]> = { normal: [], full: [] };
  for (let round_ = 0; round_ < options.rounds; round_++) {
    for (const level of round_ % 2 === 0 ? ['normal', 'full'] : ['full', 'normal']) {
      const run = await postingRun(dir, level, options.seconds, options.clients, env);
      runs[level].push(run);
      process.stderr.write(
        `${label} ${level}: ${run.posts} posts, ${round(run.rate, 1)}/s, p50 ${round(run.p50)} ms, p99 ${round(run.p99)} ms\n`,
      );
    }
  }
  const figures: Figure[] = [];
  for (const level of ['normal', 'full']) {
    const list = runs[level];
    figures.push(
      { metric: `${label}_${level}_posts_per_s`, value: round(median(list.map((r) => r.rate)), 1), unit: 'req/s' },
      { metric: `${label}_${level}_post_p50_ms`, value: round(median(list.map((r) => r.p50))), unit: 'ms' },
      { metric: `${label}_${level}_post_p99_ms`, value: round(median(list.map((r) => r.p99))), unit: 'ms' },
    );
  }
  return figures;
}

export const bench: Bench = {
  description:
    'synchronous FULL vs NORMAL: posting statuses through the API, fsync latency, and on storage with slow syncs',
  async run(args) {
    const { values } = parseArgs({
      args,
      options: {
        seconds: { type: 'string', default: '5' },
        clients: { type: 'string', default: '8' },
        rounds: { type: 'string', default: '2' },
        dir: { type: 'string' },
        'sync-delay-ms': { type: 'string', default: '10' },
      },
    });
    const options = { seconds: Number(values.seconds), clients: Number(values.clients), rounds: Number(values.rounds) };
    const scratch = tempDir('nestbox-bench-fsync-');
    try {
      const dir = values.dir ?? scratch.path;
      const latency = fsyncLatency(dir);
      const figures: Figure[] = [
        { metric: 'fdatasync_4k_p50_ms', value: round(percentile(latency, 50), 3), unit: 'ms' },
        { metric: 'fdatasync_4k_p99_ms', value: round(percentile(latency, 99), 3), unit: 'ms' },
      ];
      figures.push(...(await compare('disk', dir, options, {})));
      const delayMs = Number(values['sync-delay-ms']);
      if (delayMs > 0) {
        const shim = buildShim(scratch.path);
        const env = { LD_PRELOAD: shim, BENCH_SYNC_DELAY_US: String(Math.round(delayMs * 1000)) };
        figures.push(...(await compare(`slow_sync_${delayMs}ms`, dir, options, env)));
      }
      report('durability', figures);
    } finally {
      scratch.remove();
    }
  },
};
