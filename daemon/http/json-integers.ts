/**
 * Integers in a JSON body that a double cannot hold (ids above 2^53 sent as numbers, as some
 * clients send `in_reply_to_id` or `last_read_id`) are kept as their digits, the way Rails reads
 * them; Node 20's JSON.parse gives its reviver no source text, so such a body is read again with
 * lossless-json. Only bodies with a run of 16 digits pay for it: shorter integers are exact.
 */
import { lazy } from '../lib/on-first-use.js';

const LONG_DIGITS = /\d{16}/;
const INTEGER = /^-?\d+$/;

const losslessJson = lazy('the JSON parser for long integers (lossless-json)', () => import('lossless-json'));

/** The body parsed again keeping long integers as text, or undefined: the first parse stands. */
export async function withLongIntegers(raw: string): Promise<unknown> {
  if (!LONG_DIGITS.test(raw)) return undefined;
  const { parse } = await losslessJson();
  try {
    return parse(raw, null, (text) => {
      const value = Number(text);
      return INTEGER.test(text) && !Number.isSafeInteger(value) ? text.replace(/^(-?)0+(?=\d)/, '$1') : value;
    });
  } catch {
    // The first parse took it: only what lossless-json alone refuses (a key given twice) is left.
    return undefined;
  }
}
