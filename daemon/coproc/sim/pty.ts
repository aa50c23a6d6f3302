/**
 * A real pseudo-terminal for the simulator, made by socat: socat owns the master side and relays it
 * to our stdin/stdout pipes; the slave side (reachable at `linkPath`, a symlink to /dev/pts/N) is
 * the "device" the host opens. Killing socat is pulling the plug; a new bridge on the same path is
 * plugging it back in.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, lstatSync, unlinkSync } from 'node:fs';

export interface PtyBridge {
  /** The device path to open (a symlink to the slave side). */
  readonly path: string;
  readonly pid: number;
  write(bytes: Buffer): void;
  onData(listener: (chunk: Buffer) => void): void;
  /** Resolves when socat has exited (after close() or on its own). */
  readonly exited: Promise<void>;
  close(): Promise<void>;
}

export async function openPtyBridge(linkPath: string, timeoutMs = 5000): Promise<PtyBridge> {
  removeStaleLink(linkPath);
  const child: ChildProcess = spawn('socat', [`pty,raw,echo=0,link=${linkPath}`, 'STDIO'], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let gone = false;
  void exited.then(() => {
    gone = true;
  });
  child.once('error', () => {
    gone = true;
  });
  child.stdin!.on('error', () => undefined); // socat gone: writes are lost, as on an unplugged wire

  const deadline = Date.now() + timeoutMs;
  while (!existsSync(linkPath)) {
    if (gone || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(
        `socat did not create a pseudo-terminal at ${linkPath}${stderr ? `: ${stderr.trim()}` : ' (is socat installed?)'}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return {
    path: linkPath,
    pid: child.pid!,
    write: (bytes) => {
      if (!gone) child.stdin!.write(bytes);
    },
    onData: (listener) => {
      child.stdout!.on('data', listener);
    },
    exited,
    async close() {
      if (!gone) child.kill('SIGTERM');
      await exited;
      removeStaleLink(linkPath);
    },
  };
}

function removeStaleLink(path: string): void {
  try {
    if (lstatSync(path).isSymbolicLink()) unlinkSync(path);
  } catch {
    /* not there */
  }
}
