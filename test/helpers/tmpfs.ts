/**
 * A small tmpfs as a daemon's data dir (root only: tests run as root in CI), and filling it up.
 * The caller unmounts it on every path (try/finally); unmount() also removes the mount point.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, openSync, rmSync, statfsSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './paths.js';

export interface Tmpfs {
  path: string;
  unmount(): void;
}

export function mountTmpfs(sizeMb: number): Tmpfs {
  if (process.getuid?.() !== 0) throw new Error('mounting a tmpfs needs root (CI runs the tests as root)');
  const dir = tempDir('nestbox-tmpfs-');
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeMb}m,mode=0700`, 'tmpfs', dir.path]);
  } catch (error) {
    dir.remove();
    throw error;
  }
  let mounted = true;
  return {
    path: dir.path,
    unmount() {
      if (mounted) execFileSync('umount', ['-l', dir.path]);
      mounted = false;
      dir.remove();
    },
  };
}

export function freeBytes(dir: string): number {
  const stats = statfsSync(dir);
  return stats.bavail * stats.bsize;
}

/**
 * Writes `name` in `dir` until at most `leaveBytes` are free (0: until the filesystem refuses).
 * Returns the file's path; removing it gives the space back.
 */
export function fill(dir: string, name: string, leaveBytes = 0): string {
  const path = join(dir, name);
  const fd = openSync(path, 'a');
  const chunk = Buffer.alloc(16 * 1024, 0x55);
  try {
    while (freeBytes(dir) > leaveBytes) {
      try {
        writeSync(fd, chunk, 0, Math.min(chunk.length, Math.max(4096, freeBytes(dir) - leaveBytes)));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOSPC') break;
        throw error;
      }
    }
  } finally {
    closeSync(fd);
  }
  return path;
}

export function removeFile(path: string): void {
  rmSync(path, { force: true });
}
