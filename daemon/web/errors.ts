/** Connectivity errors in the HTTP error shape: what the person sent, or what the device said. */
import { HttpError } from '../http/errors.js';
import { unprocessable } from '../lib/errors.js';
import { CommandError } from '../connectivity/command-error.js';
import { NetworkInputError } from '../connectivity/network-input.js';

const COMMAND_STATUS: Record<CommandError['kind'], number> = { invalid: 422, unavailable: 503, busy: 409, device: 502 };

export function toHttpError(error: unknown): unknown {
  if (error instanceof NetworkInputError) {
    return unprocessable(`Validation failed: ${error.message}`, {
      [error.field]: [{ error: 'ERR_INVALID', description: error.message }],
    });
  }
  if (error instanceof CommandError) return new HttpError(COMMAND_STATUS[error.kind], error.message);
  return error;
}

/** Runs a route body, turning connectivity errors into HTTP ones. */
export async function translated<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw toHttpError(error);
  }
}
