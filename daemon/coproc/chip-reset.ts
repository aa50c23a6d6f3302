/**
 * Resetting the coprocessor from the host. The control protocol has no reset request; Espressif's
 * Linux driver pulses the chip's reset line when its module loads (`resetpin`, esp_spi.c /
 * esp_sdio.c at init) and holds it until unload, and an open /dev/esps0 keeps the module loaded.
 * So on `esps:` a reset is: close the device, reload the module through `esp-hosted.service`
 * (its ExecReload unloads and loads it; a polkit rule lets the daemon's user do that one thing),
 * open the device again. The embedded simulator (`sim`) is power-cycled instead. A `serial:`
 * link has no reset line the daemon drives: there is nothing to do.
 */
import { execFile } from 'node:child_process';
import type { CoprocTarget } from '../config.js';
import type { Simulator } from './sim/index.js';
import type { Transport } from './transport/types.js';

export const DEFAULT_RESET_COMMAND = ['systemctl', 'reload', 'esp-hosted.service'];
/** A module reload waits for the chip's boot and /dev/esps0; longer than this, it is stuck. */
const COMMAND_TIMEOUT_MS = 60_000;
/** What is kept of the command's error output for the log and the state. */
const ERROR_TEXT_MAX = 300;

export interface ChipResetter {
  /** How the chip is reset, for logs and the state: `module_reload` or `simulator`. */
  readonly method: 'module_reload' | 'simulator';
  /** Resets the chip; rejects with what went wrong. The link is open again when it settles. */
  reset(reason: string): Promise<void>;
}

/** esps: close the device, run the reload command, open the device again (also after a failure). */
export function moduleReloadResetter(transport: Transport, command: readonly string[]): ChipResetter {
  return {
    method: 'module_reload',
    async reset(reason) {
      await transport.suspend?.(`closed for a chip reset (${reason})`);
      try {
        await run(command);
      } finally {
        transport.resume?.();
      }
    },
  };
}

/** sim: the embedded simulator is power-cycled, as its reset line would do to a real chip. */
export function simulatorResetter(simulator: Simulator): ChipResetter {
  return {
    method: 'simulator',
    reset() {
      simulator.reset();
      return Promise.resolve();
    },
  };
}

/** esps: reloads the driver's module; sim: power-cycles the simulator; serial: nothing to drive. */
export function chipResetterFor(
  target: CoprocTarget,
  link: { transport: Transport; simulator: Simulator | null },
  command: readonly string[],
): ChipResetter | null {
  switch (target.kind) {
    case 'esps':
      return moduleReloadResetter(link.transport, command);
    case 'sim':
      return link.simulator ? simulatorResetter(link.simulator) : null;
    case 'serial':
      return null;
  }
}

function run(command: readonly string[]): Promise<void> {
  const [program, ...args] = command;
  return new Promise((resolve, reject) => {
    execFile(program, args, { timeout: COMMAND_TIMEOUT_MS, windowsHide: true }, (error, _stdout, stderr) => {
      if (!error) return resolve();
      const said = String(stderr).trim().replace(/\s+/g, ' ').slice(0, ERROR_TEXT_MAX);
      const how = error.killed
        ? `did not finish within ${COMMAND_TIMEOUT_MS / 1000} s`
        : typeof error.code === 'number'
          ? `exited with status ${error.code}`
          : error.message;
      reject(new Error(`${command.join(' ')} ${how}${said ? `: ${said}` : ''}`));
    });
  });
}
