/**
 * The test accounts' password hashes, made once per test run for each password and reused by every
 * suite's admin tool: scrypt is deliberately costly, and the tool's first hash starts its hash
 * worker thread too, in each of a hundred suite processes. A reused hash is the real scrypt hash of
 * that password (its own salt, the daemon's parameters), so each sign-in still checks it for real.
 * Kept in the runner's scratch folder (TEST_SCRATCH_DIR), or per process without it.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AdminTool } from '../../daemon/social/admin.js';

interface Hashing {
  hash(password: string): Promise<string>;
}

const known = new Map<string, Promise<string>>();

/** From now on the admin tool's accounts (new ones, new passwords) get the run's hash of their password. */
export function reusePasswordHashes(admin: AdminTool): void {
  // The accounts service's Passwords, the one the admin tool's account creation hashes with.
  const passwords = (admin.social.services.accounts as unknown as { passwords: Hashing }).passwords;
  const hash = passwords.hash.bind(passwords);
  passwords.hash = (password) => {
    let made = known.get(password);
    if (!made) {
      made = runHash(password, hash);
      known.set(password, made);
    }
    return made;
  };
}

async function runHash(password: string, hash: (password: string) => Promise<string>): Promise<string> {
  const folder = process.env.TEST_SCRATCH_DIR;
  const digest = createHash('sha256').update(password).digest('hex');
  const file = folder && existsSync(folder) ? join(folder, `password-hash-${digest}`) : null;
  if (file && existsSync(file)) return readFileSync(file, 'utf8');
  const made = await hash(password);
  if (file) {
    // Suites side by side may make it at once: each writes its own file, the rename is atomic.
    writeFileSync(`${file}.${process.pid}`, made);
    renameSync(`${file}.${process.pid}`, file);
  }
  return made;
}
