/**
 * Login throttling, Mastodon's rack-attack login rules: attempts are counted per client address
 * (throttle_login_attempts/ip, 25 per 5 minutes) and per account (throttle_login_attempts/email,
 * 25 per hour), before any password is hashed. Beyond a limit the key is refused (429 with
 * Retry-After) for one period, and each further time it goes over within a day for twice as long
 * (capped at a day), so a guesser that keeps going backs off exponentially.
 */
import type { RateLimiterMemory } from 'rate-limiter-flexible';
import type { AttemptLimit } from '../../config.js';
import { DomainError } from '../../lib/errors.js';
import { lazy } from '../../lib/on-first-use.js';
import type { Logger } from '../../log/logger.js';

const MAX_BLOCK_S = 24 * 3600;

type Limiters = typeof import('rate-limiter-flexible');

export class LoginThrottled extends DomainError {
  constructor(readonly retryAfterS: number) {
    super('rate-limited', 'Too many requests', undefined, { 'Retry-After': String(retryAfterS) });
  }
}

/** One rule: a counter per key and the key's strikes (times it went over) for the backoff. */
export class AttemptRule {
  private readonly attempts: RateLimiterMemory;
  private readonly strikes: RateLimiterMemory;

  constructor(
    private readonly limiters: Limiters,
    private readonly name: string,
    private readonly limit: AttemptLimit,
    private readonly log: Logger,
  ) {
    const { RateLimiterMemory } = limiters;
    this.attempts = new RateLimiterMemory({ keyPrefix: name, points: limit.limit, duration: limit.periodS });
    this.strikes = new RateLimiterMemory({
      keyPrefix: `${name}/strikes`,
      points: Number.MAX_SAFE_INTEGER,
      duration: MAX_BLOCK_S,
    });
  }

  /** Counts an attempt by `key`; the seconds to wait when it is over the limit. `shown` names the key in the log. */
  async count(key: string, shown: Record<string, string>): Promise<number | null> {
    try {
      await this.attempts.consume(key);
      return null;
    } catch (error) {
      if (!(error instanceof this.limiters.RateLimiterRes)) throw error;
      // Blocked already: the block's own end stands; the first refusal of a period sets it.
      if (error.consumedPoints > this.limit.limit + 1) return Math.max(1, Math.ceil(error.msBeforeNext / 1000));
      const { consumedPoints: strikes } = await this.strikes.penalty(key);
      const blockS = Math.min(MAX_BLOCK_S, this.limit.periodS * 2 ** (strikes - 1));
      await this.attempts.block(key, blockS);
      this.log.warn(`${this.name.split('/')[0]} attempts throttled`, {
        rule: this.name,
        ...shown,
        strikes,
        wait_s: blockS,
      });
      return blockS;
    }
  }

  /**
   * Counts a failed attempt by `key` (only failures are counted): the limit-th failure within the
   * period blocks the key at once, so `limit` failures are all a guesser gets. The wait, or null.
   */
  async countFailure(key: string, shown: Record<string, string>): Promise<number | null> {
    const waitS = await this.count(key, shown);
    if (waitS !== null) return waitS;
    const state = await this.attempts.get(key);
    return state && state.consumedPoints >= this.limit.limit ? this.count(key, shown) : null;
  }

  /** The seconds `key` must still wait, without counting an attempt; null when it may try. */
  async blockedFor(key: string): Promise<number | null> {
    const state = await this.attempts.get(key);
    if (!state || state.consumedPoints <= this.limit.limit) return null;
    return Math.max(1, Math.ceil(state.msBeforeNext / 1000));
  }
}

export class LoginThrottle {
  /** Made with the first login attempt: nothing is counted before one. */
  private readonly rules: () => Promise<{ byAddress: AttemptRule; byAccount: AttemptRule }>;

  constructor(limits: { address: AttemptLimit; account: AttemptLimit }, log: Logger) {
    this.rules = lazy('the login throttle (rate-limiter-flexible)', async () => {
      const limiters = await import('rate-limiter-flexible');
      return {
        byAddress: new AttemptRule(limiters, 'login/address', limits.address, log),
        byAccount: new AttemptRule(limiters, 'login/account', limits.account, log),
      };
    });
  }

  /**
   * Counts one login attempt from `address` (a socket's remote address) on `account` (keyed by
   * the account's id, or by the login as typed when it names none); throws LoginThrottled when either
   * is over its limit. Loopback is not counted by address: it is the box itself or a proxy on
   * it, and would put every client behind that proxy in one bucket (Mastodon safelists it too).
   */
  async attempt(address: string | undefined, account: { key: string; accountId: string | null }): Promise<void> {
    const addressKey = throttledAddress(address);
    const { byAddress, byAccount } = await this.rules();
    // What was typed as a login is never logged: it may be a password typed in the wrong field.
    const waitS =
      (addressKey ? await byAddress.count(addressKey, { address: addressKey }) : null) ??
      (await byAccount.count(account.key, account.accountId ? { account_id: account.accountId } : {}));
    if (waitS !== null) throw new LoginThrottled(waitS);
  }
}

/** The address a client is counted under: IPv6 by /64 (one host's usual allocation), none for loopback. */
export function throttledAddress(address: string | undefined): string | null {
  if (!address) return null;
  const v4 = /^(?:::ffff:)?(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (v4) return v4 === '127.0.0.1' ? null : v4;
  if (address === '::1') return null;
  return `${expandIpv6(address).slice(0, 4).join(':')}::/64`;
}

function expandIpv6(address: string): string[] {
  const [head = '', tail] = address.split('%')[0].split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const zeros = tail === undefined ? [] : Array<string>(Math.max(0, 8 - left.length - right.length)).fill('0');
  return [...left, ...zeros, ...right].map((group) => group.toLowerCase().replace(/^0+(?=.)/, ''));
}
