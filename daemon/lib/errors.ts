/**
 * What a service refuses, in the domain's words: the kind of refusal, the message the client
 * reads (Mastodon's wording) and, for failed validation, the fields. Services throw these; the
 * HTTP error middleware is the one place that turns a kind into a status.
 */
export type ErrorKind =
  /** A parameter is malformed. */
  | 'invalid'
  /** No valid credentials. */
  | 'unauthenticated'
  | 'forbidden'
  /** Missing, or not visible to the one asking (the two are never told apart). */
  | 'not-found'
  /** Changed by someone else meanwhile. */
  | 'conflict'
  | 'too-large'
  | 'validation-failed'
  | 'rate-limited'
  /** Refused for now, to keep the box responsive. */
  | 'busy';

export type ErrorDetails = Record<string, Array<{ error: string; description: string }>>;

export class DomainError extends Error {
  constructor(
    readonly kind: ErrorKind,
    message: string,
    readonly details?: ErrorDetails,
    /** When to try again (Retry-After) and the limit's state (X-RateLimit-*), sent as headers. */
    readonly retry?: Record<string, string>,
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

export const badRequest = (message: string) => new DomainError('invalid', message);
export const unauthorized = (message = 'The access token is invalid') => new DomainError('unauthenticated', message);
export const forbidden = (message = 'This action is outside the authorized scopes') =>
  new DomainError('forbidden', message);
export const notFound = (message = 'Record not found') => new DomainError('not-found', message);
export const conflict = (message: string) => new DomainError('conflict', message);
export const tooLarge = (message: string) => new DomainError('too-large', message);
export const unprocessable = (message: string, details?: ErrorDetails) =>
  new DomainError('validation-failed', message, details);
export const rateLimited = (retry: Record<string, string>) =>
  new DomainError('rate-limited', 'Too many requests', undefined, retry);
export const busy = (message: string, retry: Record<string, string>) =>
  new DomainError('busy', message, undefined, retry);

/** For reads of several records: a missing one is left out (null), any other failure still fails. */
export function nullIfNotFound(error: unknown): null {
  if (error instanceof DomainError && error.kind === 'not-found') return null;
  throw error;
}
