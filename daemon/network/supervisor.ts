/**
 * A system tool run as a supervised child process (the DHCP client, the DHCP server): restarted
 * with a growing delay when it dies, stopped (SIGTERM, then SIGKILL) on request. What goes wrong
 * is said in words (`problem`) for /healthz: not installed, exited with its last complaint.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { createInterface } from 'node:readline';
import type { Logger } from '../log/logger.js';

export interface SupervisedOptions {
  /** A name for logs and reasons: "DHCP client (udhcpc)". */
  name: string;
  command: string;
  args: readonly string[];
  log: Logger;
  env?: NodeJS.ProcessEnv;
  minRestartMs?: number;
  maxRestartMs?: number;
  /** A run this long resets the restart delay. */
  stableMs?: number;
  /** Running this long after a start clears the problem (a tool that cannot bind dies at once). */
  healthyAfterMs?: number;
}

const KILL_AFTER_MS = 3000;

export class Supervised extends EventEmitter<{ line: [string]; problem: [string | null]; spawned: [number] }> {
  private child: ChildProcess | null = null;
  private wanted = false;
  private restartTimer: NodeJS.Timeout | null = null;
  private delayMs: number;
  private lastComplaint = '';
  private startedAt = 0;
  private exited: Promise<void> = Promise.resolve();
  restarts = 0;

  constructor(private readonly options: SupervisedOptions) {
    super();
    this.delayMs = options.minRestartMs ?? 500;
  }

  get pid(): number | null {
    return this.child?.pid ?? null;
  }
  get running(): boolean {
    return this.child !== null;
  }

  start(): void {
    if (this.wanted) return;
    this.wanted = true;
    this.delayMs = this.options.minRestartMs ?? 500;
    this.spawnChild();
  }

  /** Sends a signal to the running child (udhcpc: SIGUSR1 renews). */
  signal(signal: NodeJS.Signals): boolean {
    return this.child?.kill(signal) ?? false;
  }

  async stop(): Promise<void> {
    this.wanted = false;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    this.restartTimer = null;
    const child = this.child;
    if (!child) return;
    const killer = setTimeout(() => child.kill('SIGKILL'), KILL_AFTER_MS);
    child.kill('SIGTERM');
    await this.exited;
    clearTimeout(killer);
  }

  private spawnChild(): void {
    const { name, command, args, log } = this.options;
    let child: ChildProcess;
    try {
      child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], env: this.options.env ?? process.env });
    } catch (error) {
      this.failed(`${name} could not be started: ${(error as Error).message}`);
      return;
    }
    this.child = child;
    this.startedAt = Date.now();
    this.lastComplaint = '';
    let settle: () => void = () => undefined;
    this.exited = new Promise((resolve) => {
      settle = resolve;
    });
    createInterface({ input: child.stdout! }).on('line', (line) => this.emit('line', line));
    createInterface({ input: child.stderr! }).on('line', (line) => {
      if (!line.trim()) return;
      this.lastComplaint = line.trim().slice(0, 300);
      log.debug(`${name}: ${this.lastComplaint}`);
    });
    child.once('spawn', () => {
      log.info(`${name} started`, { pid: child.pid, command });
      this.emit('spawned', child.pid!);
      const healthy = setTimeout(() => {
        if (this.child === child) this.emit('problem', null);
      }, this.options.healthyAfterMs ?? 1500);
      healthy.unref();
      child.once('close', () => clearTimeout(healthy));
    });
    child.once('error', (error: NodeJS.ErrnoException) => {
      // ENOENT: not installed. The child never ran; 'close' still follows.
      this.lastComplaint = error.code === 'ENOENT' ? `${command} is not installed` : error.message;
    });
    child.once('close', (code, signal) => {
      this.child = null;
      settle();
      if (!this.wanted) return;
      const how = this.lastComplaint.endsWith('is not installed')
        ? this.lastComplaint
        : `${name} stopped (${signal ?? `exit code ${code}`})${this.lastComplaint ? `: ${this.lastComplaint}` : ''}`;
      this.failed(how);
    });
  }

  private failed(reason: string): void {
    const { log, name } = this.options;
    if (Date.now() - this.startedAt > (this.options.stableMs ?? 30_000))
      this.delayMs = this.options.minRestartMs ?? 500;
    log.warn(`${name} is not running; starting it again in ${this.delayMs} ms`, { reason });
    this.emit('problem', reason);
    this.restarts += 1;
    this.restartTimer = setTimeout(() => {
      this.restartTimer = null;
      if (this.wanted) this.spawnChild();
    }, this.delayMs);
    this.delayMs = Math.min(this.options.maxRestartMs ?? 30_000, this.delayMs * 2);
  }
}
