/**
 * What a typed operation of the client throws: a CoprocError naming the operation, for an argument
 * the device would refuse (kind 'invalid', before anything is sent), a non-zero `resp` (kind
 * 'device', with the code in words) or an answer the schema does not know.
 */
import { CoprocError } from './api.js';
import type { Body } from './codec.js';
import { OPERATION, type OperationName } from './operations.js';

const STATUS_WORDS: Record<number, string> = {
  [-1]: 'failure',
  1: 'not connected',
  2: 'no access point found',
  3: 'connection failed',
  4: 'invalid argument',
  5: 'out of range',
};

export function throwUnlessOk(operation: OperationName, answer: Body): void {
  const code = answer.resp as number;
  if (code === 0) return;
  const words = STATUS_WORDS[code] ?? `error ${code}`;
  throw new CoprocError(
    operation,
    'device',
    code,
    `${OPERATION[operation].protocolName} failed: the device answered resp ${code} (${words})`,
  );
}

export function check(operation: OperationName, condition: boolean, message: string): void {
  if (!condition) throw new CoprocError(operation, 'invalid', null, `${OPERATION[operation].protocolName}: ${message}`);
}

/** The wire form of an argument; a conversion that throws is the operation's invalid argument. */
export function argument<T>(operation: OperationName, convert: () => T): T {
  try {
    return convert();
  } catch (error) {
    throw new CoprocError(
      operation,
      'invalid',
      null,
      `${OPERATION[operation].protocolName}: ${(error as Error).message}`,
    );
  }
}

export function unexpected(operation: OperationName, what: string): never {
  throw new CoprocError(
    operation,
    'device',
    null,
    `${OPERATION[operation].protocolName}: the device answered an unknown ${what}`,
  );
}
