/**
 * Commands that arrive on `<base>/command/<name>`: the payload is validated here (the forms of
 * the README's command table, plus what Home Assistant's buttons, numbers and selects send), then
 * the command goes down through DeviceCommands. Every outcome, good or bad, is a CommandResult;
 * nothing here throws.
 */
import type { DeviceCommands, PowerSaveMode } from '../device/commands.js';
import { COMMAND_NAMES, type CommandName } from './topics.js';

export type CommandResult = ({ ok: true } & Record<string, unknown>) | { ok: false; error: string };

/** A command payload is a few bytes; anything larger is refused unread. */
export const MAX_COMMAND_BYTES = 1024;
export const TX_POWER_RANGE = { min: 2, max: 20 } as const;
const POWER_SAVE_MODES: readonly PowerSaveMode[] = ['none', 'min_modem', 'max_modem'];

type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

function fail(error: string): { ok: false; error: string } {
  return { ok: false, error };
}

/** The payload as JSON when it is JSON, or as the bare text otherwise. */
function decode(payload: Buffer): unknown {
  const text = payload.toString('utf8').trim();
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * scan, setup_mode, restart_coprocessor, install_firmware: `{}`, an empty payload, or what Home
 * Assistant sends (a button's `PRESS`, the update entity's `install`).
 */
function parsePress(name: string, payload: Buffer): Parsed<null> {
  const value = decode(payload);
  if (value === undefined || value === 'PRESS' || value === 'install') return { ok: true, value: null };
  if (isPlainObject(value) && Object.keys(value).length === 0) return { ok: true, value: null };
  return fail(`${name} takes no options: send {}, an empty payload or PRESS`);
}

export function parseTxPower(payload: Buffer): Parsed<number> {
  const value = decode(payload);
  const dbm = isPlainObject(value) ? value.dbm : value;
  const number = typeof dbm === 'number' ? dbm : typeof dbm === 'string' && dbm.trim() !== '' ? Number(dbm) : NaN;
  if (!Number.isFinite(number)) return fail('tx_power needs a number of dBm: {"dbm": 15} or 15');
  if (number < TX_POWER_RANGE.min || number > TX_POWER_RANGE.max) {
    return fail(`tx_power must be from ${TX_POWER_RANGE.min} to ${TX_POWER_RANGE.max} dBm (got ${number})`);
  }
  return { ok: true, value: number };
}

export function parsePowerSave(payload: Buffer): Parsed<PowerSaveMode> {
  const value = decode(payload);
  const raw = isPlainObject(value) ? value.mode : value;
  // "off" is how Home Assistant's select shows "none" (it reads a state of "none" as no selection).
  const mode = raw === 'off' ? 'none' : raw;
  if (typeof mode === 'string' && (POWER_SAVE_MODES as readonly string[]).includes(mode))
    return { ok: true, value: mode as PowerSaveMode };
  return fail(
    `power_save needs a mode, one of ${POWER_SAVE_MODES.join(', ')} (or off): {"mode": "min_modem"} or min_modem`,
  );
}

function isCommandName(name: string): name is CommandName {
  return (COMMAND_NAMES as readonly string[]).includes(name);
}

export interface RunCommandOptions {
  /** null when no connectivity manager is running: every valid command then answers an error. */
  commands: DeviceCommands | null;
  timeoutMs: number;
}

/** Validates and runs one command; the result is what goes to `command/<name>/result`. */
export async function runCommand(name: string, payload: Buffer, options: RunCommandOptions): Promise<CommandResult> {
  if (!isCommandName(name)) return fail(`unknown command "${name}"; known commands: ${COMMAND_NAMES.join(', ')}`);
  if (payload.length > MAX_COMMAND_BYTES)
    return fail(`payload too large (${payload.length} bytes; at most ${MAX_COMMAND_BYTES})`);
  const action = prepare(name, payload);
  if ('error' in action) return action;
  if (!options.commands) return fail('device commands are not available: the connectivity manager is not running');
  try {
    return await withTimeout(action.run(options.commands), options.timeoutMs, name);
  } catch (error) {
    return fail(error instanceof Error && error.message ? error.message : String(error));
  }
}

type Prepared = { run: (commands: DeviceCommands) => Promise<CommandResult> } | { ok: false; error: string };

function prepare(name: CommandName, payload: Buffer): Prepared {
  switch (name) {
    case 'scan':
    case 'setup_mode':
    case 'restart_coprocessor':
    case 'install_firmware': {
      const parsed = parsePress(name, payload);
      if (!parsed.ok) return parsed;
      if (name === 'scan') return { run: async (c) => ({ ok: true, networks: await c.scan() }) };
      if (name === 'install_firmware') return { run: async (c) => ({ ok: true, ...(await c.installFirmware()) }) };
      if (name === 'setup_mode')
        return {
          run: async (c) => {
            await c.enterSetupMode();
            return { ok: true };
          },
        };
      return {
        run: async (c) => {
          await c.restartCoprocessor();
          return { ok: true };
        },
      };
    }
    case 'tx_power': {
      const parsed = parseTxPower(payload);
      if (!parsed.ok) return parsed;
      return { run: async (c) => ({ ok: true, dbm: await c.setTxPower(parsed.value) }) };
    }
    case 'power_save': {
      const parsed = parsePowerSave(payload);
      if (!parsed.ok) return parsed;
      return {
        run: async (c) => {
          await c.setPowerSave(parsed.value);
          return { ok: true, mode: parsed.value };
        },
      };
    }
  }
}

function withTimeout<T>(work: Promise<T>, ms: number, name: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${name} got no answer within ${Math.round(ms / 1000)} s`)), ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}
