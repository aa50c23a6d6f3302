/** What every social service needs: the writer (knex), the prepared reader, ids, config and the bus. */
import type { Config } from '../config.js';
import type { Logger } from '../log/logger.js';
import type { Db } from '../store/db.js';
import { SnowflakeGenerator } from '../store/ids.js';
import type { SocialEventBus } from './events.js';
import type { Reader } from './store/reader.js';

export interface SocialContext {
  db: Db;
  reader: Reader;
  ids: SnowflakeGenerator;
  config: Pick<
    Config,
    | 'baseUrl'
    | 'registrations'
    | 'streamingUrl'
    | 'dataDir'
    | 'publicPreview'
    | 'smtpUrl'
    | 'smtpFrom'
    | 'federationAllowPrivate'
    | 'loginLimitAddress'
    | 'loginLimitAccount'
  >;
  log: Logger;
  events: SocialEventBus;
  /** Host (with port when not default) of the base URL: the domain part of local addresses. */
  localDomain: string;
  /** Where uploaded files live (data dir/media). */
  mediaDir: string;
  /** Clock for tests and benchmarks. */
  now: () => number;
}

export function localDomainOf(baseUrl: string): string {
  return new URL(baseUrl).host;
}
