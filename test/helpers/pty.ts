/**
 * The simulated coprocessor on a real pseudo-terminal, in this process: the host side opens
 * `path` like a serial port or /dev/esps0. `unplug()` kills the PTY's socat (the device node
 * vanishes, the host's reads fail); `replug()` makes a new one on the same path.
 */
import { join } from 'node:path';
import { openPtyBridge, type PtyBridge } from '../../daemon/coproc/sim/pty.js';
import { Simulator, type SimulatorOptions } from '../../daemon/coproc/sim/index.js';
import { tempDir } from './paths.js';
import { requirePackage } from './system-packages.js';

export interface SimOnPty {
  sim: Simulator;
  path: string;
  unplug: () => Promise<void>;
  replug: () => Promise<void>;
  close: () => Promise<void>;
}

export async function startSimOnPty(options: SimulatorOptions = {}): Promise<SimOnPty> {
  requirePackage(['socat']);
  const dir = tempDir('nestbox-pty-');
  const path = join(dir.path, 'coproc');
  const sim = new Simulator({ otaPath: join(dir.path, 'ota.bin'), ...options });
  let bridge: PtyBridge | null = null;
  const plug = async () => {
    const next = await openPtyBridge(path);
    next.onData((chunk) => sim.receive(chunk));
    sim.attach((bytes) => next.write(bytes));
    bridge = next;
  };
  await plug();
  sim.powerOn();
  return {
    sim,
    path,
    async unplug() {
      sim.attach(null);
      await bridge?.close();
      bridge = null;
    },
    async replug() {
      await plug();
      sim.reset(); // a USB-serial coprocessor is power-cycled by a replug
    },
    async close() {
      sim.close();
      await bridge?.close();
      dir.remove();
    },
  };
}
