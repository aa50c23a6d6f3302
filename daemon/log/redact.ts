/**
 * Secrets never reach the log, by construction: every field whose name says it
 * holds a secret is replaced before the line is written, however deep it sits.
 */
const SECRET_KEY =
  /pass(word|phrase)?|^pwd$|token|secret|authorization|cookie|private_?key|^psk$|credential|signature|^code_verifier$|^client_secret$/i;

export const REDACTED = '[redacted]';

export function isSecretKey(key: string): boolean {
  return SECRET_KEY.test(key);
}

export function redact(value: unknown, depth = 0): unknown {
  if (depth > 8) return '[deep]';
  if (value instanceof Error) return errorFields(value, depth);
  if (Array.isArray(value)) return value.map((item) => redact(item, depth + 1));
  if (value instanceof Uint8Array) return `<${value.length} bytes>`;
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      out[key] = isSecretKey(key) && item != null && item !== '' ? REDACTED : redact(item, depth + 1);
    }
    return out;
  }
  if (typeof value === 'bigint') return value.toString();
  return value;
}

function errorFields(error: Error, depth: number): Record<string, unknown> {
  const out: Record<string, unknown> = { name: error.name, message: error.message };
  const code = (error as { code?: unknown }).code;
  if (code !== undefined) out.code = code;
  if (error.stack) out.stack = error.stack.split('\n').slice(0, 8).join('\n');
  if (error.cause !== undefined) out.cause = redact(error.cause, depth + 1);
  return out;
}
