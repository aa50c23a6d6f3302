/**
 * Tagged templates for the public pages: every interpolation is escaped unless it is already
 * `SafeHtml` (another template's output, or HTML the server sanitised and marked with `trusted`).
 */
import { escapeHtml } from '../statuses/html.js';

export class SafeHtml {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

type Part = SafeHtml | string | number | null | undefined | false | readonly Part[];

function piece(value: Part): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof SafeHtml) return value.text;
  if (Array.isArray(value)) return (value as readonly Part[]).map(piece).join('');
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: Part[]): SafeHtml {
  let out = strings[0];
  for (let i = 0; i < values.length; i++) out += piece(values[i]) + strings[i + 1];
  return new SafeHtml(out);
}

/** HTML the server produced and sanitised itself (status content, bios, escaped profile fields). */
export function trusted(text: string): SafeHtml {
  return new SafeHtml(text);
}
