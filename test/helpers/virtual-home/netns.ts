/**
 * Network namespaces for one test run: names carry the test process's pid, so parallel runs never
 * clash and a later run can sweep what a killed one left behind. Everything made here is undone by
 * `cleanup()`, which also runs on exit, SIGINT and SIGTERM of the test process.
 */
import { execFile, execFileSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { promisify } from 'node:util';

const run = promisify(execFile);
const PREFIX = 'nbx';
const NETNS_DIR = '/run/netns';
const ETC_NETNS = '/etc/netns';

/** Throws at once, with the one command to type, when namespaces cannot be made here. */
export function requireRoot(what = 'npm test -- virtual-home'): void {
  if (process.getuid?.() !== 0) throw new Error(`the virtual home needs root (network namespaces): run  sudo ${what}`);
}

/** `ip` with these arguments; rejects with ip's own message. */
export async function ip(...args: string[]): Promise<string> {
  try {
    return (await run('ip', args)).stdout;
  } catch (error) {
    const { stderr } = error as { stderr?: string };
    throw new Error(`ip ${args.join(' ')}: ${stderr?.trim() || (error as Error).message}`, { cause: error });
  }
}

export function namespaceName(role: string, pid = process.pid): string {
  return `${PREFIX}${pid}-${role}`;
}

function ownerPid(name: string): number | null {
  const match = new RegExp(`^${PREFIX}(\\d+)-`).exec(name);
  return match ? Number(match[1]) : null;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function listNamespaces(): string[] {
  try {
    return readdirSync(NETNS_DIR);
  } catch {
    return [];
  }
}

/** Kills what still runs inside the namespace, then deletes it and its /etc/netns dir (synchronous: usable in exit handlers). */
function removeNamespaceSync(name: string): void {
  try {
    const pids = execFileSync('ip', ['netns', 'pids', name], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    for (const pid of pids.split(/\s+/).filter(Boolean)) {
      try {
        process.kill(Number(pid), 'SIGKILL');
      } catch {
        /* gone */
      }
    }
  } catch {
    /* no such namespace */
  }
  try {
    execFileSync('ip', ['netns', 'del', name], { stdio: 'ignore' });
  } catch {
    /* already gone */
  }
  rmSync(`${ETC_NETNS}/${name}`, { recursive: true, force: true });
}

/** Namespaces (and /etc/netns dirs) of test processes that died without cleaning up. */
export function sweepStaleNamespaces(): string[] {
  let etc: string[] = [];
  try {
    etc = readdirSync(ETC_NETNS);
  } catch {
    /* none */
  }
  const stale = [...new Set([...listNamespaces(), ...etc])].filter((name) => {
    const pid = ownerPid(name);
    return pid !== null && pid !== process.pid && !alive(pid);
  });
  for (const name of stale) removeNamespaceSync(name);
  return stale;
}

/** What a run made, undone in reverse order: child processes first, then namespaces. */
class Cleanup {
  private readonly namespaces = new Set<string>();
  private readonly children = new Set<ChildProcess>();
  private hooked = false;

  addNamespace(name: string): void {
    this.hook();
    this.namespaces.add(name);
  }

  addChild(child: ChildProcess): void {
    this.hook();
    this.children.add(child);
    child.once('exit', () => this.children.delete(child));
  }

  runSync(): void {
    for (const child of this.children) {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
    this.children.clear();
    for (const name of [...this.namespaces].reverse()) removeNamespaceSync(name);
    this.namespaces.clear();
  }

  forgetNamespace(name: string): void {
    this.namespaces.delete(name);
  }

  private hook(): void {
    if (this.hooked) return;
    this.hooked = true;
    process.once('exit', () => this.runSync());
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
      process.once(signal, () => {
        this.runSync();
        process.exit(128 + (signal === 'SIGINT' ? 2 : signal === 'SIGTERM' ? 15 : 1));
      });
    }
  }
}

export const cleanup = new Cleanup();

/**
 * A new namespace with loopback up and its own resolv.conf (`ip netns exec` bind-mounts it over
 * /etc/resolv.conf, so a DHCP client's script inside never rewrites the host's).
 */
export async function addNamespace(name: string): Promise<void> {
  cleanup.addNamespace(name);
  mkdirSync(`${ETC_NETNS}/${name}`, { recursive: true });
  writeFileSync(`${ETC_NETNS}/${name}/resolv.conf`, '# written by the virtual home\n');
  await ip('netns', 'add', name);
  await ip('-n', name, 'link', 'set', 'lo', 'up');
}

export function deleteNamespace(name: string): void {
  removeNamespaceSync(name);
  cleanup.forgetNamespace(name);
}
