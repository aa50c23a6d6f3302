/**
 * An account's profile fields as stored (a JSON list of name, value and, once the page a link
 * points to links back, verified_at) and as clients see them. Names and values are kept as escaped
 * text; a value that is one web address is shown as a link, as Mastodon shows it.
 */
import { escapeHtml } from '../statuses/html.js';

export interface StoredField {
  name: string;
  value: string;
  verified_at?: string | null;
}

export interface FieldJson {
  name: string;
  value: string;
  verified_at: string | null;
}

export const FIELDS_MAX = 4;
const FIELD_TEXT_MAX = 255;
const ESCAPES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'" };

export function parseStoredFields(text: string | null): StoredField[] {
  try {
    const parsed: unknown = JSON.parse(text ?? '[]');
    if (!Array.isArray(parsed)) return [];
    return parsed.filter(
      (field): field is StoredField =>
        typeof field === 'object' &&
        field !== null &&
        typeof (field as StoredField).name === 'string' &&
        typeof (field as StoredField).value === 'string',
    );
  } catch {
    return [];
  }
}

/**
 * The fields a person submitted, escaped, for storing in place of `previous`: a value that did not
 * change keeps its verification, a changed one waits for the next check.
 */
export function fieldsToStore(input: Array<{ name: string; value: string }>, previous: StoredField[]): string {
  const fields = input.map((field): StoredField => {
    const value = escapeHtml(field.value.slice(0, FIELD_TEXT_MAX));
    const kept = previous.find((old) => old.value === value && old.verified_at)?.verified_at ?? null;
    return { name: escapeHtml(field.name.slice(0, FIELD_TEXT_MAX)), value, verified_at: kept };
  });
  return JSON.stringify(fields);
}

/** The web address a field's value is, when it is exactly one (http or https), else null. */
export function fieldUrl(value: string): URL | null {
  const text = value.replace(/&(amp|lt|gt|quot|#39);/g, (entity) => ESCAPES[entity]).trim();
  if (!/^https?:\/\/\S+$/i.test(text)) return null;
  try {
    const url = new URL(text);
    return url.hostname ? url : null;
  } catch {
    return null;
  }
}

/** The fields as the API shows them: values that are a web address as links (rel="me" included). */
export function fieldsJson(text: string | null): FieldJson[] {
  return parseStoredFields(text).map((field) => ({
    name: field.name,
    value: fieldUrl(field.value) ? linkHtml(field.value) : field.value,
    verified_at: field.verified_at ?? null,
  }));
}

/** The fields as their owner typed them (the credential account's `source.fields`). */
export function sourceFieldsJson(text: string | null): FieldJson[] {
  return parseStoredFields(text).map((field) => ({
    name: field.name,
    value: field.value,
    verified_at: field.verified_at ?? null,
  }));
}

/** `escapedUrl` is already escaped text: safe as both the attribute and the link text. */
function linkHtml(escapedUrl: string): string {
  return `<a href="${escapedUrl}" target="_blank" rel="nofollow noopener me" translate="no">${escapedUrl}</a>`;
}
