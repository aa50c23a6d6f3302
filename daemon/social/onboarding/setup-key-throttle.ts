/**
 * Wrong setup keys at onboarding, counted for the whole box (the key is the box's, so a guesser
 * changing addresses must not get more tries): from the limit-th wrong key (ten in 15 minutes)
 * every attempt, a right key too, waits out a block that doubles each time it is hit again within
 * a day.
 */
import type { AttemptLimit } from '../../config.js';
import { DomainError } from '../../lib/errors.js';
import { lazy } from '../../lib/on-first-use.js';
import type { Logger } from '../../log/logger.js';
import { AttemptRule } from '../ratelimit/login-throttle.js';

const KEY = 'box';
export const SETUP_KEY_LIMIT: AttemptLimit = { limit: 10, periodS: 15 * 60 };

export class SetupKeyThrottled extends DomainError {
  constructor(readonly retryAfterS: number) {
    super(
      'rate-limited',
      `Too many wrong setup keys: try again in ${Math.ceil(retryAfterS / 60)} minutes, or from the box's setup network`,
      undefined,
      { 'Retry-After': String(retryAfterS) },
    );
  }
}

export class SetupKeyThrottle {
  private readonly rule: () => Promise<AttemptRule>;

  constructor(log: Logger, limit: AttemptLimit = SETUP_KEY_LIMIT) {
    this.rule = lazy(
      'the setup key throttle (rate-limiter-flexible)',
      async () => new AttemptRule(await import('rate-limiter-flexible'), 'setup-key', limit, log),
    );
  }

  /** Throws while the box is refusing keys. */
  async check(): Promise<void> {
    const waitS = await (await this.rule()).blockedFor(KEY);
    if (waitS !== null) throw new SetupKeyThrottled(waitS);
  }

  /** Counts a wrong key; throws when it was the limit-th (the tenth locks the form). */
  async wrongKey(): Promise<void> {
    const waitS = await (await this.rule()).countFailure(KEY, {});
    if (waitS !== null) throw new SetupKeyThrottled(waitS);
  }
}
