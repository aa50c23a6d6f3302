/**
 * JSON rendered once and written verbatim. Hot responses repeat the same objects: a page's
 * author is embedded in every one of its statuses, the same senders come back page after page.
 * An object marked with its JSON text is written into a response as that text instead of being
 * serialized again.
 *
 * Only renderJson embeds the texts. Anywhere else a marked object serializes like any other
 * (its toJSON hands JSON.stringify a plain copy), so code that stringifies it directly, or a
 * library that does, still gets the whole object.
 */
import { randomBytes } from 'node:crypto';

/** Unguessable, so no string a user wrote can pass for a placeholder. */
const NONCE = randomBytes(12).toString('hex');
const PLACEHOLDER = new RegExp(`"${NONCE}:(\\d+)"`, 'g');

/** The texts of the renderJson call in progress (JSON.stringify is synchronous: one at a time). */
let embedding: string[] | null = null;

/** The stored text of each marked object. */
const texts = new WeakMap<object, string>();

/** Shared by every marked object: its placeholder inside renderJson, a plain copy anywhere else. */
function toJSON(this: object): unknown {
  if (embedding === null) return Array.isArray(this) ? [...this] : { ...this };
  embedding.push(texts.get(this)!);
  return `${NONCE}:${embedding.length - 1}`;
}

/**
 * Marks `value` (frozen, with everything in it: it is shared between responses) as rendered to
 * `text`, which must be JSON.stringify(value).
 */
export function markRendered<T extends object>(value: T, text: string = JSON.stringify(value)): Readonly<T> {
  texts.set(value, text);
  Object.defineProperty(value, 'toJSON', { enumerable: false, value: toJSON });
  return deepFreeze(value);
}

/** JSON.stringify(value), with every marked object inside written as its stored text. */
export function renderJson(value: unknown): string {
  const texts: string[] = [];
  embedding = texts;
  let skeleton: string;
  try {
    skeleton = JSON.stringify(value);
  } finally {
    embedding = null;
  }
  if (texts.length === 0) return skeleton;
  let replaced = 0;
  const text = skeleton.replace(PLACEHOLDER, (_match, index: string) => {
    replaced += 1;
    return texts[Number(index)] ?? 'null';
  });
  // Every placeholder is one of ours unless a string in the data forged one: then serialize plainly.
  return replaced === texts.length ? text : JSON.stringify(value);
}

function deepFreeze<T>(value: T): Readonly<T> {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return value;
  for (const child of Object.values(value as object)) deepFreeze(child);
  return Object.freeze(value);
}

/** True for a body koa would serialize as JSON (not text, bytes or a stream). */
export function isJsonBody(body: unknown): body is object {
  return body !== null && typeof body === 'object' && !Buffer.isBuffer(body) && typeof (body as { pipe?: unknown }).pipe !== 'function';
}
