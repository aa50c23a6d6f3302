/**
 * Cron expressions as the configuration and the jobs read them: five fields, or six with seconds
 * first; a day-of-month and a day-of-week field must both match (as node-cron, the scheduler before
 * croner, read them: Vixie cron's "either" would turn `0 4 1 * mon` into every Monday too).
 */
import { CronPattern, type CronOptions } from 'croner';

export const CRON_OPTIONS: CronOptions = { mode: '5-or-6-parts', domAndDow: true };

export function isCronExpression(text: string): boolean {
  try {
    new CronPattern(text, undefined, { mode: CRON_OPTIONS.mode });
    return true;
  } catch {
    return false;
  }
}
