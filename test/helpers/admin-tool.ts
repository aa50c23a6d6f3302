/**
 * The admin tool as the bundle builds it (the daemon's own code, sharing its chunks): loaded from
 * dist/daemon/ it would read knex's and lodash's hundreds of files in every test process. Its
 * accounts get the run's hash of their password (test/helpers/password-hashes.ts).
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Config } from '../../daemon/config.js';
import type { AdminTool } from '../../daemon/social/admin.js';
import { reusePasswordHashes } from './password-hashes.js';
import { DIST } from './paths.js';

export async function loadAdminTool(): Promise<typeof AdminTool> {
  const bundled = pathToFileURL(join(DIST, 'bundle', 'social', 'admin.js')).href;
  return ((await import(bundled)) as typeof import('../../daemon/social/admin.js')).AdminTool;
}

/** The admin tool opened on a daemon's configuration, `tool` being loadAdminTool()'s answer. */
export async function openAdminTool(tool: Promise<typeof AdminTool>, config: Config): Promise<AdminTool> {
  const admin = await (await tool).open(config);
  reusePasswordHashes(admin);
  return admin;
}
