/**
 * Rendered responses of hot read endpoints (notification pages, unread counts, the public pages), kept while the
 * database has not changed: an entry is stored with the data version read *before* it was
 * computed and served only while that version still holds, so any commit (of this process or
 * another) makes every entry stale. Clients poll the same first page over and over; this answers
 * them without walking and rendering it again. Bounded by total size and by entry count. Requests
 * that miss together (after a commit, every polling client at once) render once: those that read
 * the same data version as a render under way for their key wait for its answer.
 */
import type { Context } from 'koa';
import type { DataVersion } from '../../store/dialect.js';
import type { Reader } from '../store/reader.js';
import { isJsonBody, renderJsonBytes } from './json-text.js';

interface Entry {
  version: DataVersion;
  body: Buffer;
  headers: Record<string, string>;
  bytes: number;
}

/**
 * What an entry costs beyond its body and key (the Map slot, the entry, the Buffer and header
 * objects). Counted, so the bound holds for many tiny bodies too (unread counts with ever-changing
 * query strings), whose overhead would otherwise outweigh them.
 */
const ENTRY_OVERHEAD_BYTES = 256;

/**
 * A home instance's clients poll a handful of URLs each; many more keys means query strings that
 * vary per request (cache busters), whose entries are never asked for again and only keep the
 * heap large, even under the byte bound.
 */
const MAX_ENTRIES = 1000;

export class ResponseCache {
  private readonly entries = new Map<string, Entry>();
  /**
   * Renders under way, by key and the data version they were read at: requests for the same key
   * that read the same version while one renders wait for its answer instead of rendering it again
   * (clients that poll together all miss together after a commit). null: no answer to share.
   */
  private readonly rendering = new Map<string, Promise<Entry | null>>();
  private bytes = 0;

  constructor(
    private readonly reader: Reader,
    private readonly maxBytes = 4 * 1024 * 1024,
    private readonly maxEntries = MAX_ENTRIES,
  ) {}

  /**
   * Serves `key` from the cache when fresh; otherwise runs `render` (which fills ctx.body and
   * headers) and keeps its body (JSON, or text of `type`) and the headers named in `keep`.
   */
  async serve(
    ctx: Context,
    key: string,
    keep: string[],
    render: () => Promise<void>,
    type = 'application/json',
  ): Promise<void> {
    const version = await this.reader.dataVersion();
    const hit = this.entries.get(key);
    if (hit && hit.version === version) {
      // Refresh its place in the LRU order.
      this.entries.delete(key);
      this.entries.set(key, hit);
      return answer(ctx, hit, type);
    }
    // Made from the same version as the shared render's, the answer is as fresh as a hit.
    const flight = `${version} ${key}`;
    // Checked and claimed in the same turn (no await between), so one of the requests renders.
    const pending = this.rendering.get(flight);
    const shared = pending && (await pending);
    if (shared) return answer(ctx, shared, type);
    let done: (entry: Entry | null) => void = () => undefined;
    const mine = new Promise<Entry | null>((resolve) => (done = resolve));
    this.rendering.set(flight, mine);
    let entry: Entry | null = null;
    try {
      entry = await this.renderEntry(ctx, key, version, keep, render, type);
    } finally {
      // Followers of a render that failed render their own: theirs may have taken the slot since.
      if (this.rendering.get(flight) === mine) this.rendering.delete(flight);
      done(entry);
    }
    if (entry) this.store(key, entry);
  }

  /** Runs `render` and makes its answer an entry (and the body bytes); null unless it answered 200. */
  private async renderEntry(
    ctx: Context,
    key: string,
    version: DataVersion,
    keep: string[],
    render: () => Promise<void>,
    type: string,
  ): Promise<Entry | null> {
    await render();
    if (ctx.status !== 200) return null;
    // Kept as bytes: a hit is then written as it is, not measured and encoded again.
    const body = isJsonBody(ctx.body) ? renderJsonBytes(ctx.body) : Buffer.from(String(ctx.body));
    const headers: Record<string, string> = {};
    for (const name of keep) {
      const value = ctx.response.get(name);
      if (value) headers[name] = value;
    }
    ctx.type = type;
    ctx.body = body;
    return { version, body, headers, bytes: body.length + key.length + ENTRY_OVERHEAD_BYTES };
  }

  private store(key: string, entry: Entry): void {
    if (entry.bytes > this.maxBytes / 4) return;
    const previous = this.entries.get(key);
    if (previous) {
      this.bytes -= previous.bytes;
      this.entries.delete(key);
    }
    this.entries.set(key, entry);
    this.bytes += entry.bytes;
    for (const [oldest, old] of this.entries) {
      if (this.bytes <= this.maxBytes && this.entries.size <= this.maxEntries) break;
      this.entries.delete(oldest);
      this.bytes -= old.bytes;
    }
  }
}

/** Answers `ctx` with a kept (or shared) entry. */
function answer(ctx: Context, entry: Entry, type: string): void {
  ctx.set(entry.headers);
  ctx.type = type;
  ctx.body = entry.body;
}
