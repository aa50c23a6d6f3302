/**
 * The social API's router, remembering which of its layers each method and path matched. Koa's
 * router tests every route's pattern in turn on every request, and the API has about two hundred;
 * the routes never change once mounted, so a path asked before needs no second pass. Bounded in
 * count and in each path's length: a client walking ever new ids only turns the oldest entries
 * over, and one sending long made-up paths cannot make them hold much memory.
 */
import Router, { type MatchResult } from '@koa/router';
import { BoundedMap } from '../render/bounded-map.js';

/** Distinct method-and-path pairs kept: a home instance's clients repeat far fewer. */
const REMEMBERED_PATHS = 2000;
/** Longer paths are matched each time: the API's own are far shorter, ids included. */
const LONGEST_REMEMBERED_PATH = 256;

export class MatchCachingRouter extends Router {
  private readonly matches = new BoundedMap<string, MatchResult>(REMEMBERED_PATHS);

  /** How many method-and-path pairs are remembered. */
  get rememberedPaths(): number {
    return this.matches.size;
  }

  override match(path: string, method: string): MatchResult {
    if (path.length > LONGEST_REMEMBERED_PATH) return super.match(path, method);
    const key = `${method} ${path}`;
    const known = this.matches.get(key) ?? this.matches.set(key, super.match(path, method));
    // A fresh `path` list each time: the router appends a later router's matches to it (ctx.matched).
    return { ...known, path: [...known.path] };
  }
}
