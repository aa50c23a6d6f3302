/**
 * Why a device command or a firmware update was not carried out, said for the person who asked;
 * the HTTP and MQTT outputs map the kind to their own answers.
 */
import { CoprocError } from '../coproc/api.js';
import { describeDeviceError } from './device-operations.js';

export type CommandErrorKind = 'invalid' | 'unavailable' | 'busy' | 'device';

export class CommandError extends Error {
  constructor(
    readonly kind: CommandErrorKind,
    message: string,
  ) {
    super(message);
    this.name = 'CommandError';
  }
}

export function deviceLostError(): CommandError {
  return new CommandError('unavailable', 'The Wi-Fi coprocessor does not answer');
}

/** A refused radio setting: out of range (the device answers 5), no answer, or another refusal. */
export function radioSettingError(what: string, error: unknown): CommandError {
  if (error instanceof CoprocError && error.kind === 'device' && error.code === 5)
    return new CommandError('invalid', `${what}: out of the device's range`);
  if (error instanceof CoprocError && error.kind !== 'device')
    return new CommandError('unavailable', `${what}: the Wi-Fi coprocessor does not answer`);
  return new CommandError('device', `${what}: the device refused (${describeDeviceError(error)})`);
}
