/**
 * Errors in Mastodon's shape: {"error": "…"} with the right status (422 adds "details"),
 * never a stack trace. A service's DomainError gets its status here, and only here; an
 * HttpError is the HTTP layer's own refusal. A database server that went away, or a database
 * another process kept locked past the wait, is a 503 with Retry-After; text the database cannot
 * store (a NUL on PostgreSQL) a 400; anything else thrown is a 500, logged in full.
 */
import type { Context, Next } from 'koa';
import type { Logger } from '../log/logger.js';
import { isOutOfSpace, OUT_OF_SPACE_MESSAGE } from '../storage/out-of-space.js';
import { DomainError, type ErrorDetails, type ErrorKind } from '../lib/errors.js';

/** The status of each kind of refusal a service makes. */
const STATUS_OF_KIND: Record<ErrorKind, number> = {
  invalid: 400,
  unauthenticated: 401,
  forbidden: 403,
  'not-found': 404,
  conflict: 409,
  'too-large': 413,
  'validation-failed': 422,
  'rate-limited': 429,
  busy: 503,
};

export function statusOf(error: DomainError | HttpError): number {
  return error instanceof DomainError ? STATUS_OF_KIND[error.kind] : error.status;
}

export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly details?: ErrorDetails,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not found',
  405: 'Method not allowed',
  406: 'Not acceptable',
  408: 'Request timeout',
  409: 'Conflict',
  413: 'Payload too large',
  415: 'Unsupported media type',
  422: 'Unprocessable entity',
  429: 'Too many requests',
  503: 'Service unavailable',
  507: 'Insufficient storage',
};

/** Told of every request that failed because the disk is full (the storage monitor looks again). */
export type OutOfSpaceListener = () => void;

/** True for an error that says the database server is gone (the store's dialect knows which). */
export type ServerLostTest = (error: unknown) => boolean;

/** True for an error that says the database cannot store a text the request holds (a NUL on PostgreSQL). */
export type UnstorableTextTest = (error: unknown) => boolean;

/** True for an error that says another process held the database's write lock past the wait (SQLite). */
export type DatabaseBusyTest = (error: unknown) => boolean;

/** How the HTTP layer tells the storage's and the database's failures from the code's (each optional). */
export interface FailureTests {
  /** Told when a request failed for lack of disk space (answered 507). */
  onOutOfSpace?: OutOfSpaceListener;
  /** Errors that say the database server is gone: answered 503 with Retry-After. */
  serverLost?: ServerLostTest;
  /** Errors that say the database cannot store a value the request holds: answered 400. */
  unstorableText?: UnstorableTextTest;
  /** Errors that say the database stayed locked by another process: answered 503 with Retry-After. */
  databaseBusy?: DatabaseBusyTest;
}

const UNSTORABLE_TEXT = 'Text may not contain NUL characters';

/** The answer while the database server is away: the request changed nothing, and may be sent again. */
const SERVER_LOST = { error: 'The database does not answer at the moment; try again shortly' };
const RETRY_AFTER_S = 10;
/** The answer while another process holds the database's write lock: nothing changed, send it again. */
const DATABASE_BUSY = { error: 'The database is busy; try again shortly' };
const BUSY_RETRY_AFTER_S = 5;

const never = () => false;

export function errorMiddleware(
  log: Logger,
  {
    onOutOfSpace = () => undefined,
    serverLost = never,
    unstorableText = never,
    databaseBusy = never,
  }: FailureTests = {},
) {
  return async function shapeErrors(ctx: Context, next: Next): Promise<void> {
    try {
      await next();
      if (ctx.status === 404 && ctx.body == null) throw new HttpError(404, 'Not found');
      if (ctx.status === 405 && ctx.body == null) throw new HttpError(405, STATUS_TEXT[405]);
    } catch (error) {
      const { status, body, headers } = serverLost(error)
        ? { status: 503, body: SERVER_LOST, headers: { 'Retry-After': String(RETRY_AFTER_S) } }
        : databaseBusy(error)
          ? { status: 503, body: DATABASE_BUSY, headers: { 'Retry-After': String(BUSY_RETRY_AFTER_S) } }
          : unstorableText(error)
            ? { status: 400, body: { error: UNSTORABLE_TEXT }, headers: {} }
            : toResponse(error);
      if (status === 503 && body === SERVER_LOST) {
        // The server's fault, reported in /healthz: one line per refused request, no stack trace.
        log.warn('request refused: the database does not answer', { method: ctx.method, path: ctx.path });
      } else if (status === 503 && body === DATABASE_BUSY) {
        // Another process's long transaction (the admin tool, any other program): one line, no stack trace.
        log.warn('request refused: the database is locked by another process', {
          method: ctx.method,
          path: ctx.path,
        });
      } else if (status === 507) {
        // Not a fault of the code: one line per refused write, no stack trace.
        log.warn('write refused: storage full', { method: ctx.method, path: ctx.path });
        onOutOfSpace();
      } else if (status >= 500) log.error('request failed', { method: ctx.method, path: ctx.path, error });
      // A client's mistake is its own: the message only, never a stack trace.
      else if (log.enabled('debug'))
        log.debug('request refused', { method: ctx.method, path: ctx.path, status, error: body.error });
      ctx.status = status;
      ctx.set(headers);
      ctx.body = body;
    }
  };
}

function toResponse(error: unknown): {
  status: number;
  body: Record<string, unknown>;
  headers: Record<string, string>;
} {
  if (error instanceof HttpError || error instanceof DomainError) {
    const body: Record<string, unknown> = { error: error.message };
    if (error.details) body.details = error.details;
    return {
      status: statusOf(error),
      body,
      headers: (error instanceof DomainError ? error.retry : error.headers) ?? {},
    };
  }
  // Before the client statuses: a body parser that ran out of disk reports a 4xx of its own.
  if (isOutOfSpace(error)) return { status: 507, body: { error: OUT_OF_SPACE_MESSAGE }, headers: {} };
  // Errors from koa and its body parser carry a client status (400 bad JSON, 413 too large, …).
  const status = Number((error as { status?: unknown })?.status ?? (error as { statusCode?: unknown })?.statusCode);
  if (Number.isInteger(status) && status >= 400 && status < 500) {
    return { status, body: { error: describeClientError(status, error as Error & { expose?: boolean }) }, headers: {} };
  }
  return { status: 500, body: { error: 'Internal server error' }, headers: {} };
}

function describeClientError(status: number, error: Error & { expose?: boolean }): string {
  if (status === 413) return 'Payload too large';
  // The body parser reports malformed JSON as a SyntaxError carrying status 400.
  if (status === 400 && error.name === 'SyntaxError') return 'Invalid JSON in request body';
  return (error.expose && error.message) || STATUS_TEXT[status] || 'Bad request';
}
