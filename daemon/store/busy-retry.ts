/**
 * Transactions run again when SQLite refuses them with SQLITE_BUSY. In WAL mode SQLite answers a
 * deferred transaction BUSY at once, without waiting out the busy timeout, where waiting could
 * deadlock (a transaction that read before another connection committed, then writes); its advice
 * is to roll back and run the transaction again. A process that writes beside the running daemon
 * (the admin tool) meets this when the daemon commits at the same moment.
 */
import type { Db } from './db.js';
import { engineOf } from './dialect.js';

const ATTEMPTS = 6;
const FIRST_WAIT_MS = 20;

function isBusy(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === 'SQLITE_BUSY';
}

/** Makes `db.transaction(callback)` run the callback again (from the start) after SQLITE_BUSY; PostgreSQL's is left alone. */
export function retryBusyTransactions(db: Db): Db {
  if (engineOf(db) !== 'sqlite') return db;
  const transaction = db.transaction.bind(db) as (...args: unknown[]) => unknown;
  // knex defines it read-only (but configurable).
  const retrying = (...args: unknown[]) => {
    const [callback] = args;
    // knex's other forms (a transaction provider, no callback) are handed on as they are.
    if (typeof callback !== 'function') return transaction(...args);
    return (async () => {
      for (let attempt = 1; ; attempt++) {
        try {
          return await (transaction(...args) as Promise<unknown>);
        } catch (error) {
          if (!isBusy(error) || attempt === ATTEMPTS) throw error;
          await new Promise((resolve) => setTimeout(resolve, FIRST_WAIT_MS * 2 ** (attempt - 1)));
        }
      }
    })();
  };
  Object.defineProperty(db, 'transaction', { value: retrying, configurable: true });
  return db;
}
