/**
 * The reachability's files under the data directory (keys, certificate, the owner's dynamic-DNS
 * login): owner-only (0600 in a 0700 folder), written whole through a temporary file and fsynced
 * before the rename, so a power cut leaves either the old file or the new one, never half of one.
 */
import { chmod, mkdir, open, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { publishFile } from '../storage/durable-files.js';

export class SecretFiles {
  constructor(readonly dir: string) {}

  async write(name: string, content: string): Promise<void> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    await chmod(this.dir, 0o700);
    const final = join(this.dir, name);
    const temporary = `${final}.${process.pid}.tmp`;
    const handle = await open(temporary, 'w', 0o600);
    try {
      await handle.writeFile(content);
    } finally {
      await handle.close();
    }
    await chmod(temporary, 0o600);
    await publishFile(temporary, final);
  }

  /** The file's text, or null when it does not exist. */
  async read(name: string): Promise<string | null> {
    try {
      return await readFile(join(this.dir, name), 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }

  async remove(name: string): Promise<void> {
    await rm(join(this.dir, name), { force: true });
  }
}
