/**
 * The command line's view of messages: options in kebab case → a request with protobuf field
 * names, and a response → JSON with protobuf field names (MACs and SSIDs as text, enums by name,
 * other bytes in base64, `resp` always present). Driven by the schema, not written per operation.
 */
import { readFileSync } from 'node:fs';
import protobuf from 'protobufjs';
import type { Body } from './codec.js';
import { stripNul } from './convert.js';
import type { OperationSpec } from './operations.js';
import { loadSchema } from './schema.js';

const MAC_FIELDS = new Set(['mac', 'bssid']);
/** Fields shown and taken as text: SSIDs, passphrases, the firmware's name, a country code. */
const TEXT_FIELDS = new Set(['ssid', 'pwd', 'name', 'country']);

export class UsageError extends Error {}

/** `--wifi-max-tx-power 80 --enable` style options → the request message of `spec`. */
export function requestFromOptions(spec: OperationSpec, options: Record<string, string | true>): Body {
  const type = schemaType(spec.requestType);
  const request: Body = {};
  for (const [option, raw] of Object.entries(options)) {
    const name = option.replace(/-/g, '_');
    const field = type.fields[name];
    if (!field) {
      const known = type.fieldsArray.map((f) => `--${f.name.replace(/_/g, '-')}`).join(', ') || 'none';
      throw new UsageError(`${spec.cli} has no option --${option} (options: ${known})`);
    }
    request[name] = parseField(field, raw, spec.enumFields?.[name]);
  }
  return request;
}

function parseField(field: protobuf.Field, raw: string | true, enumName?: string): unknown {
  const where = `--${field.name.replace(/_/g, '-')}`;
  if (field.resolvedType instanceof protobuf.Type) {
    if (raw === true) throw new UsageError(`${where} needs a JSON object`);
    let object: unknown;
    try {
      object = JSON.parse(raw);
    } catch {
      throw new UsageError(`${where} must be a JSON object with protobuf field names`);
    }
    if (!object || typeof object !== 'object' || Array.isArray(object))
      throw new UsageError(`${where} must be a JSON object`);
    return Object.fromEntries(
      Object.entries(object).map(([key, value]) => {
        const inner = field.resolvedType instanceof protobuf.Type ? field.resolvedType.fields[key] : undefined;
        if (!inner) throw new UsageError(`${where} has no field ${key}`);
        return [key, parseField(inner, typeof value === 'string' ? value : String(value))];
      }),
    );
  }
  if (field.type === 'bool') {
    if (raw === true) return true;
    if (/^(true|1|yes|on)$/i.test(raw)) return true;
    if (/^(false|0|no|off)$/i.test(raw)) return false;
    throw new UsageError(`${where} is true or false, not ${JSON.stringify(raw)}`);
  }
  if (raw === true) throw new UsageError(`${where} needs a value`);
  if (field.type === 'string') return Uint8Array.from(Buffer.from(raw, 'utf8'));
  if (field.type === 'bytes') {
    if (MAC_FIELDS.has(field.name)) return Uint8Array.from(Buffer.from(raw.toLowerCase(), 'ascii'));
    if (TEXT_FIELDS.has(field.name)) return Uint8Array.from(Buffer.from(raw, 'utf8'));
    if (raw.startsWith('@')) return Uint8Array.from(readFileSync(raw.slice(1)));
    return Uint8Array.from(Buffer.from(raw, 'base64'));
  }
  const enumType =
    field.resolvedType instanceof protobuf.Enum
      ? field.resolvedType
      : enumName
        ? loadSchema().schema.lookupEnum(enumName)
        : null;
  if (/^-?\d+$/.test(raw)) return Number(raw);
  if (enumType) {
    const entry = Object.entries(enumType.values).find(([name]) => name.toLowerCase() === raw.toLowerCase());
    if (entry) return entry[1];
    throw new UsageError(`${where} is a number or one of ${Object.keys(enumType.values).join(', ')}`);
  }
  throw new UsageError(`${where} is a whole number, not ${JSON.stringify(raw)}`);
}

/** A decoded message → JSON with protobuf field names, every field present. */
export function presentMessage(
  typeName: string,
  body: Body,
  enumFields: Readonly<Record<string, string>> = {},
): Record<string, unknown> {
  const type = schemaType(typeName);
  const out: Record<string, unknown> = {};
  for (const field of type.fieldsArray) {
    const value = body[field.name];
    const present = (item: unknown) => presentValue(field, item, enumFields[field.name]);
    out[field.name] = field.repeated ? ((value as unknown[] | undefined) ?? []).map(present) : present(value);
  }
  return out;
}

function presentValue(field: protobuf.Field, value: unknown, enumName?: string): unknown {
  if (field.resolvedType instanceof protobuf.Type)
    return value ? presentMessage(field.resolvedType.name, value as Body) : null;
  if (value instanceof Uint8Array) {
    if (MAC_FIELDS.has(field.name)) return Buffer.from(value).toString('latin1').toLowerCase();
    if (TEXT_FIELDS.has(field.name)) return new TextDecoder().decode(stripNul(value));
    return Buffer.from(value).toString('base64');
  }
  const enumType =
    field.resolvedType instanceof protobuf.Enum
      ? field.resolvedType
      : enumName
        ? loadSchema().schema.lookupEnum(enumName)
        : null;
  if (enumType && typeof value === 'number') return enumType.valuesById[value] ?? value;
  return value ?? null;
}

function schemaType(name: string): protobuf.Type {
  return loadSchema().schema.lookupType(name);
}
