/**
 * NESTBOX_DATABASE_URL's check, without the driver: the configuration reads it at every start,
 * SQLite or not. A URL as libpq takes it (postgres://user:password@host:5432/database, TLS as
 * ?sslmode=…&sslrootcert=…, a socket folder as ?host=/run/postgresql).
 */
import { parse } from 'pg-connection-string';

/** Whether `url` is a PostgreSQL URL node-postgres can connect with: the reason when it is not. */
export function postgresUrlProblem(url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'not a URL';
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') return 'not a postgres:// URL';
  try {
    const options = parse(url);
    if (!options.host) return 'no host (a name, an address, or ?host=/socket/folder)';
    if (!options.database) return 'no database name';
  } catch (error) {
    return (error as Error).message;
  }
  return null;
}

/** The URL with its user and password left out, for messages and logs. */
export function withoutCredentials(url: string): string {
  return url.replace(/\/\/[^@/?#]*@/, '//[credentials]@');
}
