/**
 * Expanding our ActivityPub documents with a real JSON-LD processor (`jsonld`, in safe mode), the
 * contexts they reference served from the copies in test/helpers/json-ld/ (no network), and
 * checking nothing was lost: no term dropped, none turned into a blank node (the ActivityStreams
 * context maps undefined terms to `_:`), every value still there.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import jsonld from 'jsonld';
import { REPO_ROOT } from './paths.js';

const CONTEXT_FILES: Record<string, string> = {
  'https://www.w3.org/ns/activitystreams': 'activitystreams.jsonld',
  'https://w3id.org/security/v1': 'security-v1.jsonld',
};

const contexts = new Map<string, object>();

/** The bundled contexts; any other URL is refused (a test must never reach the network). */
async function documentLoader(url: string): Promise<{ contextUrl?: string; documentUrl: string; document: object }> {
  const normalized = url.replace(/\/$/, '').replace(/^http:\/\/www\.w3\.org/, 'https://www.w3.org');
  const file = CONTEXT_FILES[normalized];
  if (!file) throw new Error(`no bundled JSON-LD context for ${url} (and no network in tests)`);
  if (!contexts.has(file))
    contexts.set(file, JSON.parse(readFileSync(join(REPO_ROOT, 'test', 'helpers', 'json-ld', file), 'utf8')) as object);
  return { documentUrl: url, document: contexts.get(file) as object };
}

export interface Expansion {
  expanded: unknown[];
  /** What was lost, in words; empty when the document expands whole. */
  problems: string[];
  /** Every property IRI and type IRI in the expanded document. */
  iris: Set<string>;
}

export async function expandWhole(document: object): Promise<Expansion> {
  const problems: string[] = [];
  let expanded: unknown[] = [];
  try {
    expanded = await jsonld.expand(document, {
      documentLoader,
      safe: true,
    } as unknown as jsonld.Options.Expand);
  } catch (error) {
    const event = (error as { details?: { event?: { code?: string; details?: unknown } } }).details?.event;
    problems.push(`${(error as Error).message}${event ? ` ${event.code}: ${JSON.stringify(event.details)}` : ''}`);
    return { expanded, problems, iris: new Set() };
  }
  const iris = new Set<string>();
  walkExpanded(expanded, iris, problems);
  const sent = countLeaves(document);
  const kept = countExpandedLeaves(expanded);
  if (sent !== kept) problems.push(`${sent} values sent, ${kept} left after expansion`);
  return { expanded, problems, iris };
}

const ABSOLUTE = /^(https?|urn|mailto):/;

function walkExpanded(value: unknown, iris: Set<string>, problems: string[]): void {
  if (Array.isArray(value)) {
    for (const item of value) walkExpanded(item, iris, problems);
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  const node = value as Record<string, unknown>;
  if ('@value' in node) return;
  for (const [key, inner] of Object.entries(node)) {
    if (key === '@type') {
      for (const type of [inner].flat()) {
        if (typeof type !== 'string' || !ABSOLUTE.test(type)) problems.push(`type ${JSON.stringify(type)} is no IRI`);
        else iris.add(type);
      }
      continue;
    }
    if (key.startsWith('@')) {
      walkExpanded(inner, iris, problems);
      continue;
    }
    if (!ABSOLUTE.test(key)) problems.push(`property ${JSON.stringify(key)} is no IRI (an undefined term)`);
    else iris.add(key);
    walkExpanded(inner, iris, problems);
  }
}

/** Scalars sent (the `@context` aside; null means "absent" and expands to nothing). */
function countLeaves(value: unknown): number {
  if (value === null || value === undefined) return 0;
  if (Array.isArray(value)) return value.reduce((sum: number, item) => sum + countLeaves(item), 0);
  if (typeof value !== 'object') return 1;
  return Object.entries(value).reduce((sum, [key, inner]) => (key === '@context' ? sum : sum + countLeaves(inner)), 0);
}

/** Values left: each @value, each @id and each node's @type. */
function countExpandedLeaves(value: unknown): number {
  if (Array.isArray(value)) return value.reduce((sum: number, item) => sum + countExpandedLeaves(item), 0);
  if (typeof value !== 'object' || value === null) return 0;
  const node = value as Record<string, unknown>;
  if ('@value' in node) return 1;
  let sum = 0;
  for (const [key, inner] of Object.entries(node)) {
    if (key === '@id') sum += 1;
    else if (key === '@type') sum += [inner].flat().length;
    else sum += countExpandedLeaves(inner);
  }
  return sum;
}
