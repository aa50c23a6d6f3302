/**
 * The `poll` parameter of posting and editing, in either form apps send it: a JSON object
 * (`{"poll": {"options": [...], "expires_in": 3600}}`) or Rails' bracket keys
 * (`poll[options][]=a&poll[expires_in]=3600`).
 */
import { badRequest, unprocessable } from '../../lib/errors.js';
import { boolParam, stringParam, type Params } from '../http/params.js';

export interface PollInput {
  options: string[];
  expiresIn: number;
  multiple: boolean;
  hideTotals: boolean;
}

/** The poll asked for, or undefined when there is none. Shape errors are 400s; limits are checked by the service. */
export function pollParam(p: Params): PollInput | undefined {
  const nested = p.poll;
  if (nested !== undefined && nested !== null && (typeof nested !== 'object' || Array.isArray(nested)))
    throw invalid('poll');
  const poll: Params =
    nested && typeof nested === 'object'
      ? (nested as Params)
      : Object.fromEntries(
          Object.entries(p)
            .filter(([key]) => key.startsWith('poll['))
            .map(([key, value]) => [key.slice(5).replace(']', ''), value]),
        );
  if (Object.keys(poll).length === 0) return undefined;
  const expiresIn = Number(stringParam(poll, 'expires_in') || NaN);
  if (!Number.isSafeInteger(expiresIn)) throw unprocessable("Validation failed: Poll expires at can't be blank");
  return {
    options: optionsOf(poll),
    expiresIn,
    multiple: boolParam(poll, 'multiple') ?? false,
    hideTotals: boolParam(poll, 'hide_totals') ?? false,
  };
}

/** `options[]` (form) or `options` (JSON): a list of strings, anything else a 400. */
function optionsOf(poll: Params): string[] {
  const raw = poll['options[]'] ?? poll.options ?? [];
  const list = Array.isArray(raw) ? raw : typeof raw === 'string' && poll['options[]'] !== undefined ? [raw] : null;
  if (!list || list.some((item) => typeof item !== 'string')) throw invalid('poll[options]');
  return list as string[];
}

const invalid = (name: string) => badRequest(`Invalid value for '${name}'`);
