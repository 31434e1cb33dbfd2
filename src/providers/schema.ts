/**
 * The tool schemas handed to model providers. The run keeps validating every
 * call against the schema exactly as the server declared it (S4); what a
 * provider gets is a copy in the form it accepts:
 * - every provider: the root `type: "object"` (added when absent) and no `$schema`;
 * - OpenAI strict mode: every property required, optional ones nullable
 *   (`null` means "left out" and is removed from the arguments before
 *   validation), `additionalProperties: false` on every object, and only the
 *   structural keywords; schemas that cannot be expressed that way
 *   (`$ref`, combinators, open objects, tuples) are sent non-strict.
 */
import { isPlainObject, setOwn } from '../json.js';

type Json = Record<string, unknown>;

/** A provider's copy of a tool schema: root object type, no `$schema`. */
export function providerSchema(schema: object): Json {
  const { $schema: _dialect, ...rest } = schema as Json;
  return rest.type === undefined ? { type: 'object', ...rest } : rest;
}

/** How to undo strict mode's nulls: per object, which properties were optional, and the plans below. */
export interface StrictDecoder {
  optional: ReadonlySet<string>;
  properties: ReadonlyMap<string, StrictDecoder>;
  items?: StrictDecoder;
}

const STRUCTURAL = new Set(['type', 'properties', 'required', 'additionalProperties', 'items', 'enum', 'const', 'description', 'title']);
const PRIMITIVES = new Set(['string', 'number', 'integer', 'boolean', 'null']);

/** The strict-mode form of `schema` and its decoder, or undefined when it has no faithful strict form. */
export function toStrictSchema(schema: object): { schema: Json; decoder: StrictDecoder } | undefined {
  const converted = strictNode(providerSchema(schema), true);
  return converted && { schema: converted.schema, decoder: converted.decoder ?? EMPTY };
}

const EMPTY: StrictDecoder = { optional: new Set(), properties: new Map() };

function strictNode(node: unknown, root = false): { schema: Json; decoder?: StrictDecoder } | undefined {
  if (!isPlainObject(node)) return undefined;
  // Keywords outside the structural set are dropped from the copy; the run still enforces them.
  if (
    Object.keys(node).some(
      (k) =>
        k === '$ref' ||
        k === '$defs' ||
        k === 'definitions' ||
        k === 'anyOf' ||
        k === 'oneOf' ||
        k === 'allOf' ||
        k === 'not' ||
        k === 'if' ||
        k === 'patternProperties' ||
        k === 'prefixItems',
    )
  )
    return undefined;
  const type = node.type;
  if (type === 'object' || (root && type === undefined)) return strictObject(node);
  if (type === 'array') {
    if (!isPlainObject(node.items)) return undefined; // tuples and untyped arrays have no strict form
    const items = strictNode(node.items);
    return (
      items && {
        schema: { ...keep(node), type: 'array', items: items.schema },
        ...(items.decoder ? { decoder: { optional: new Set(), properties: new Map(), items: items.decoder } } : {}),
      }
    );
  }
  const types = Array.isArray(type) ? type : [type];
  if (type === undefined && node.enum === undefined && node.const === undefined) return undefined; // "anything" has no strict form
  if (type !== undefined && !types.every((t) => typeof t === 'string' && PRIMITIVES.has(t))) return undefined;
  const { const: constant, ...rest } = keep(node);
  return { schema: 'const' in node ? { ...rest, enum: [constant] } : rest };
}

function strictObject(node: Json): { schema: Json; decoder: StrictDecoder } | undefined {
  if (node.additionalProperties !== undefined && node.additionalProperties !== false) return undefined;
  const properties = isPlainObject(node.properties) ? node.properties : {};
  const required = new Set(Array.isArray(node.required) ? node.required.filter((r): r is string => typeof r === 'string') : []);
  const out: Json = {};
  const optional = new Set<string>();
  const nested = new Map<string, StrictDecoder>();
  for (const [name, child] of Object.entries(properties)) {
    const converted = strictNode(child);
    if (converted === undefined) return undefined;
    if (converted.decoder) nested.set(name, converted.decoder);
    if (required.has(name)) {
      setOwn(out, name, converted.schema);
    } else {
      optional.add(name);
      setOwn(out, name, nullable(converted.schema));
    }
  }
  return {
    schema: { ...keep(node), type: 'object', properties: out, required: Object.keys(out), additionalProperties: false },
    decoder: { optional, properties: nested },
  };
}

function keep(node: Json): Json {
  return Object.fromEntries(Object.entries(node).filter(([k]) => STRUCTURAL.has(k) && k !== 'required' && k !== 'additionalProperties'));
}

function nullable(schema: Json): Json {
  const out = { ...schema };
  if (Array.isArray(out.enum)) out.enum = out.enum.includes(null) ? out.enum : [...out.enum, null];
  if (typeof out.type === 'string') out.type = out.type === 'null' ? 'null' : [out.type, 'null'];
  else if (Array.isArray(out.type) && !out.type.includes('null')) out.type = [...out.type, 'null'];
  return out;
}

/** Removes the nulls strict mode made the model send for left-out properties; other values pass unchanged. */
export function decodeStrict(value: unknown, decoder: StrictDecoder): unknown {
  if (Array.isArray(value)) return decoder.items ? value.map((v) => decodeStrict(v, decoder.items as StrictDecoder)) : value;
  if (!isPlainObject(value)) return value;
  const out: Json = {};
  for (const [key, v] of Object.entries(value)) {
    if (v === null && decoder.optional.has(key)) continue;
    const nested = decoder.properties.get(key);
    setOwn(out, key, nested ? decodeStrict(v, nested) : v);
  }
  return out;
}
