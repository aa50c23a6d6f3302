/** Runs `npm run admin`'s script on a daemon's database, without blocking the test's event loop. */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { REPO_ROOT } from './paths.js';
import { databaseUrlOf } from './daemon-database.js';

export interface AdminRun {
  status: number;
  stdout: string;
  stderr: string;
}

export function runAdmin(
  target: { dataDir: string; baseUrl: string },
  args: string[],
  env: Record<string, string> = {},
): Promise<AdminRun> {
  const databaseUrl = databaseUrlOf(target.dataDir);
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [join(REPO_ROOT, 'dist/bundle/admin.js'), ...args],
      {
        env: {
          PATH: process.env.PATH,
          NESTBOX_DATA_DIR: target.dataDir,
          NESTBOX_BASE_URL: target.baseUrl,
          ...(databaseUrl && { NESTBOX_DATABASE_URL: databaseUrl }),
          ...env,
        },
        encoding: 'utf8',
      },
      (error, stdout, stderr) => resolve({ status: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}
