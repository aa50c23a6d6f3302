/**
 * JSON rendered once and written verbatim. Hot responses repeat the same objects: a page's
 * author is embedded in every one of its statuses, the same senders come back page after page.
 * An object marked with its JSON is kept as UTF-8 bytes, encoded once, and a response embeds those
 * bytes instead of serializing and encoding the object again: encoding a large page costs more
 * than building it.
 *
 * Only renderJson and renderJsonBytes embed the stored JSON. Anywhere else a marked object
 * serializes like any other (its toJSON hands JSON.stringify a plain copy), so code that
 * stringifies it directly, or a library that does, still gets the whole object.
 */
import { randomBytes } from 'node:crypto';

/** Unguessable, so no string a user wrote can pass for a placeholder. */
const NONCE = randomBytes(12).toString('hex');
/** How a placeholder begins inside the JSON text: `"<nonce>:<index>"`. */
const PLACEHOLDER_START = `"${NONCE}:`;

/** The stored JSON met by the render in progress (JSON.stringify is synchronous: one at a time). */
let embedding: Buffer[] | null = null;

/** The stored JSON of each marked object, as UTF-8. */
const stored = new WeakMap<object, Buffer>();

/** Shared by every marked object: its placeholder inside renderJson, a plain copy anywhere else. */
function toJSON(this: object): unknown {
  if (embedding === null) return Array.isArray(this) ? [...(this as unknown[])] : { ...this };
  return placeholder(this);
}

function placeholder(value: object): string {
  embedding!.push(stored.get(value)!);
  return `${NONCE}:${embedding!.length - 1}`;
}

/**
 * Marks `value` (frozen, with everything in it: it is shared between responses) as rendered to
 * `text`, which must be JSON.stringify(value).
 */
export function markRendered<T extends object>(value: T, text: string = JSON.stringify(value)): Readonly<T> {
  // Its own allocation, not a slice of Node's shared 8 KB pool: one long-kept slice would keep its
  // whole pool block alive after the cache dropped every neighbour.
  const bytes = Buffer.allocUnsafeSlow(Buffer.byteLength(text));
  bytes.write(text);
  stored.set(value, bytes);
  Object.defineProperty(value, 'toJSON', { enumerable: false, value: toJSON });
  return deepFreeze(value);
}

/** JSON.stringify(value) as UTF-8, with every marked object inside written as its stored bytes. */
export function renderJsonBytes(value: unknown): Buffer {
  const parts = envelopeParts(value);
  return parts ? joinParts(parts) : renderWithPlaceholders(value);
}

/** A run of stored objects, written comma-separated between the brackets. */
interface StoredList {
  list: Buffer[];
}
type Part = string | Buffer | StoredList;

/**
 * The parts of the usual hot body (a list of stored objects, or a plain object whose fields are
 * such lists or stored objects beside plain values: a page and what it embeds), written without a
 * stringify pass, which for a page of stored objects costs the main thread more than joining
 * them. null for any other shape. A field of another kind is rendered on its own the general way.
 */
function envelopeParts(value: unknown): Part[] | null {
  if (value === null || typeof value !== 'object' || stored.has(value)) return null;
  if (Array.isArray(value)) {
    const list = storedList(value);
    return list ? [list] : null;
  }
  // Other objects (an account, the instance, a count) are one stringify pass as they are.
  if (!isPlainObject(value) || !Object.values(value).some(startsStoredList)) return null;
  const parts: Part[] = [];
  for (const key of Object.keys(value)) {
    const field = (value as Record<string, unknown>)[key];
    const list = Array.isArray(field) ? storedList(field) : null;
    const rendered = list ?? storedBytes(field) ?? fieldText(field);
    if (rendered === undefined) continue;
    parts.push(`${parts.length === 0 ? '{' : ','}${JSON.stringify(key)}:`, rendered);
  }
  parts.push(parts.length === 0 ? '{}' : '}');
  return parts;
}

/** The stored bytes of every item, or null unless every item is a marked object (and there is one). */
function storedList(items: readonly unknown[]): StoredList | null {
  if (items.length === 0) return null;
  const list: Buffer[] = [];
  for (const item of items) {
    const bytes = storedBytes(item);
    if (!bytes) return null;
    list.push(bytes);
  }
  return { list };
}

function startsStoredList(field: unknown): boolean {
  return Array.isArray(field) ? stored.has(field[0] as object) : stored.has(field as object);
}

function storedBytes(value: unknown): Buffer | undefined {
  return stored.get(value as object); // undefined for anything unmarked, primitives too
}

/** A field's JSON as JSON.stringify writes it inside an object; undefined where it leaves the field out. */
function fieldText(field: unknown): string | Buffer | undefined {
  if (field !== null && typeof field === 'object') return renderWithPlaceholders(field);
  return JSON.stringify(field);
}

function isPlainObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value) as unknown;
  return (proto === Object.prototype || proto === null) && !('toJSON' in value);
}

const [OPEN_BRACKET, COMMA, CLOSE_BRACKET] = [0x5b, 0x2c, 0x5d];

/** The parts in one allocation, filled in place. */
function joinParts(parts: readonly Part[]): Buffer {
  let length = 0;
  for (const part of parts) {
    if (typeof part === 'string') length += Buffer.byteLength(part);
    else if (Buffer.isBuffer(part)) length += part.length;
    else length += part.list.reduce((sum, bytes) => sum + bytes.length, part.list.length + 1); // brackets and commas
  }
  const out = Buffer.allocUnsafe(length);
  let offset = 0;
  for (const part of parts) {
    if (typeof part === 'string') offset += out.write(part, offset);
    else if (Buffer.isBuffer(part)) offset += part.copy(out, offset);
    else offset = writeList(out, offset, part.list);
  }
  return out;
}

/** `[a,b,…]` of stored bytes at `offset`; returns the offset after it. */
function writeList(out: Buffer, offset: number, list: readonly Buffer[]): number {
  out[offset++] = OPEN_BRACKET;
  list.forEach((bytes, i) => {
    if (i > 0) out[offset++] = COMMA;
    out.set(bytes, offset);
    offset += bytes.length;
  });
  out[offset++] = CLOSE_BRACKET;
  return offset;
}

/** JSON.stringify(value) with marked objects as placeholders, then their stored bytes put in their place. */
function renderWithPlaceholders(value: unknown): Buffer {
  const embedded: Buffer[] = [];
  embedding = embedded;
  let skeleton: string;
  try {
    skeleton = JSON.stringify(value);
  } finally {
    embedding = null;
  }
  if (embedded.length === 0) return Buffer.from(skeleton);
  const gaps = skeletonGaps(skeleton, embedded.length);
  // Every placeholder is one of ours unless a string in the data forged one: then serialize plainly.
  if (!gaps) return Buffer.from(JSON.stringify(value));
  // One allocation, filled in place: the skeleton's own text is small, only it is encoded here.
  let length = 0;
  for (const gap of gaps) length += Buffer.byteLength(gap);
  for (const bytes of embedded) length += bytes.length;
  const out = Buffer.allocUnsafe(length);
  let offset = 0;
  embedded.forEach((bytes, i) => {
    offset += out.write(gaps[i], offset);
    out.set(bytes, offset);
    offset += bytes.length;
  });
  out.write(gaps[embedded.length], offset);
  return out;
}

/**
 * The skeleton's text around its `count` placeholders, which must be exactly "0" to "count - 1" in
 * order (JSON.stringify meets them in that order); null if the skeleton holds any other.
 */
function skeletonGaps(skeleton: string, count: number): string[] | null {
  const gaps: string[] = [];
  let from = 0;
  for (let i = 0; i < count; i++) {
    const at = skeleton.indexOf(PLACEHOLDER_START, from);
    if (at < 0) return null;
    const close = skeleton.indexOf('"', at + PLACEHOLDER_START.length);
    if (skeleton.slice(at + PLACEHOLDER_START.length, close) !== String(i)) return null;
    gaps.push(skeleton.slice(from, at));
    from = close + 1;
  }
  if (skeleton.includes(PLACEHOLDER_START, from)) return null;
  gaps.push(skeleton.slice(from));
  return gaps;
}

/** JSON.stringify(value), with every marked object inside written as its stored JSON. */
export function renderJson(value: unknown): string {
  return renderJsonBytes(value).toString('utf8');
}

function deepFreeze<T>(value: T): Readonly<T> {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return value;
  for (const child of Object.values(value as object)) deepFreeze(child);
  return Object.freeze(value);
}

/** True for a body koa would serialize as JSON (not text, bytes or a stream). */
export function isJsonBody(body: unknown): body is object {
  return (
    body !== null &&
    typeof body === 'object' &&
    !Buffer.isBuffer(body) &&
    typeof (body as { pipe?: unknown }).pipe !== 'function'
  );
}
