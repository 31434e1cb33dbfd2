/**
 * Example arguments from a tool's own inputSchema, for contract checks of
 * servers we did not write (`agt mcp check`): the smallest instance the schema
 * seems to ask for — required properties only, `const`, the first `enum`
 * value, `examples` and `default` when given, numbers and lengths within their
 * bounds, common formats. A schema is server data: nodes are read to a bounded
 * depth and breadth, local `$ref`s followed a bounded number of times, and no
 * `pattern` is ever run here. Each attempt is a guess; the caller keeps the
 * first that its compiled validator accepts (patterns included).
 */
import { isPlainObject } from '../json.js';
import { MAX_SCHEMA_PROPERTIES } from '../bounds.js';

type Schema = Record<string, unknown>;

/** How many different guesses {@link exampleArguments} can make (attempt 0 … ATTEMPTS − 1). */
export const EXAMPLE_ATTEMPTS = 8;

// The walker's own tuning (bounds.ts: it stays beside the walker): an example needs no more depth or $refs than this.
const MAX_DEPTH = 8;
const MAX_REFS = 32;

// Strings tried in turn for a string without const, enum, examples or a known format.
const STRINGS = ['example', 'a', 'A1', 'test_value', '1', 'x-y', 'hello world', ''];

const FORMATS: Record<string, string> = {
  date: '2024-01-01',
  'date-time': '2024-01-01T00:00:00Z',
  time: '12:00:00Z',
  email: 'user@example.com',
  uri: 'https://example.com/',
  'uri-reference': 'https://example.com/',
  url: 'https://example.com/',
  hostname: 'example.com',
  ipv4: '127.0.0.1',
  ipv6: '::1',
  uuid: '00000000-0000-4000-8000-000000000000',
  duration: 'P1D',
};

interface Walk {
  root: unknown;
  attempt: number;
  refs: number;
}

/** A guess at valid arguments for `schema` (attempt 0 is the first guess); always an object. */
export function exampleArguments(schema: unknown, attempt = 0): Record<string, unknown> {
  const value = example(schema, { root: schema, attempt, refs: 0 }, 0);
  return isPlainObject(value) ? value : {};
}

// A local "#/…" reference, resolved in the root (percent and ~ escapes decoded); undefined for others.
function resolve(ref: string, root: unknown): unknown {
  if (!ref.startsWith('#')) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(1).split('/').slice(1)) {
    const token = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (!isPlainObject(node) && !Array.isArray(node)) return undefined;
    node = (node as Record<string, unknown>)[token];
  }
  return node;
}

function firstType(schema: Schema): string | undefined {
  if (typeof schema.type === 'string') return schema.type;
  if (Array.isArray(schema.type)) return (schema.type.find((t) => t !== 'null') ?? schema.type[0]) as string | undefined;
  if (isPlainObject(schema.properties) || Array.isArray(schema.required)) return 'object';
  if (schema.items !== undefined || schema.prefixItems !== undefined) return 'array';
  if (typeof schema.minLength === 'number' || typeof schema.pattern === 'string' || typeof schema.format === 'string') return 'string';
  if (typeof schema.minimum === 'number' || typeof schema.maximum === 'number') return 'number';
  return undefined;
}

function example(node: unknown, walk: Walk, depth: number): unknown {
  if (node === true || node === undefined) return {};
  if (!isPlainObject(node) || depth > MAX_DEPTH) return null;
  if (typeof node.$ref === 'string' && walk.refs < MAX_REFS) {
    walk.refs += 1;
    const target = resolve(node.$ref, walk.root);
    if (target !== undefined) return example(target, walk, depth + 1);
  }
  if ('const' in node) return node.const;
  if (Array.isArray(node.enum) && node.enum.length > 0) return node.enum[walk.attempt % node.enum.length];
  if (Array.isArray(node.examples) && node.examples.length > 0 && walk.attempt === 0) return node.examples[0];
  if ('default' in node && walk.attempt <= 1) return node.default;
  for (const key of ['allOf', 'anyOf', 'oneOf'] as const) {
    const list = node[key];
    if (Array.isArray(list) && list.length > 0 && firstType(node) === undefined) {
      if (key === 'allOf') return merged(list, walk, depth);
      return example(list[walk.attempt % list.length], walk, depth + 1);
    }
  }
  switch (firstType(node)) {
    case 'object':
      return objectExample(node, walk, depth);
    case 'array':
      return arrayExample(node, walk, depth);
    case 'string':
      return stringExample(node, walk.attempt);
    case 'integer':
      return numberExample(node, true);
    case 'number':
      return numberExample(node, false);
    case 'boolean':
      return walk.attempt % 2 === 0;
    case 'null':
      return null;
    default:
      return {};
  }
}

// allOf: the objects its parts give, merged (other parts: the first one's value).
function merged(parts: unknown[], walk: Walk, depth: number): unknown {
  const values = parts.slice(0, 16).map((p) => example(p, walk, depth + 1));
  if (!values.every(isPlainObject)) return values[0];
  return Object.assign({}, ...values);
}

function objectExample(node: Schema, walk: Walk, depth: number): Record<string, unknown> {
  const props = isPlainObject(node.properties) ? node.properties : {};
  const required = Array.isArray(node.required) ? node.required.filter((k): k is string => typeof k === 'string') : [];
  const out: Record<string, unknown> = {};
  for (const key of required.slice(0, MAX_SCHEMA_PROPERTIES)) {
    const value = example(props[key] ?? {}, walk, depth + 1);
    Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

function arrayExample(node: Schema, walk: Walk, depth: number): unknown[] {
  const min = typeof node.minItems === 'number' ? Math.min(node.minItems, 16) : 0;
  // 2020-12 prefixItems; drafts 4–2019-09 give a tuple as an `items` list.
  const tuple = Array.isArray(node.prefixItems) ? node.prefixItems : Array.isArray(node.items) ? node.items : [];
  const prefix = tuple.slice(0, 16);
  const each = Array.isArray(node.items) ? (node.additionalItems ?? {}) : (node.items ?? {});
  const items = prefix.map((p) => example(p, walk, depth + 1));
  const count = Math.max(min, walk.attempt % 2 === 1 && items.length === 0 ? 1 : 0);
  for (let i = items.length; i < count; i++) {
    // uniqueItems: vary numbers and strings by their index.
    const item = example(each, walk, depth + 1);
    items.push(typeof item === 'number' ? item + i : typeof item === 'string' && i > 0 ? `${item}${i}` : item);
  }
  return items;
}

function stringExample(node: Schema, attempt: number): string {
  const format = typeof node.format === 'string' ? FORMATS[node.format] : undefined;
  let text = format !== undefined && attempt < EXAMPLE_ATTEMPTS / 2 ? format : (STRINGS[attempt % STRINGS.length] as string);
  const min = typeof node.minLength === 'number' ? Math.min(node.minLength, 4096) : 0;
  const max = typeof node.maxLength === 'number' ? node.maxLength : Number.POSITIVE_INFINITY;
  if (text.length < min) text = text.padEnd(min, 'a');
  if (text.length > max) text = text.slice(0, Math.max(0, max));
  return text;
}

function numberExample(node: Schema, integer: boolean): number {
  const num = (k: string) => (typeof node[k] === 'number' ? (node[k] as number) : undefined);
  const step = integer ? 1 : 0.5;
  // Draft 4 marks a bound exclusive with `exclusiveMinimum: true`; later drafts give the bound itself.
  const min = num('minimum');
  const max = num('maximum');
  const xmin = num('exclusiveMinimum') ?? (node.exclusiveMinimum === true && min !== undefined ? min : undefined);
  const xmax = num('exclusiveMaximum') ?? (node.exclusiveMaximum === true && max !== undefined ? max : undefined);
  let low = xmin !== undefined ? Math.max(xmin + step, min ?? -Infinity) : min;
  const high = xmax !== undefined ? Math.min(xmax - step, max ?? Infinity) : max;
  if (low === undefined) low = high === undefined ? 1 : Math.min(1, high);
  if (integer) low = Math.ceil(low);
  const multiple = num('multipleOf');
  if (multiple !== undefined && multiple > 0) low = Math.ceil(low / multiple) * multiple;
  return low;
}
