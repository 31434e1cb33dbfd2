/**
 * What makes a kit tool's published schema and its server's parser agree by
 * construction: the server checks arguments against the published JSON Schema
 * (the ToolSchemaRegistry, the validator hosts use), then runs a copy of the
 * valibot schema with every validation action taken out — it only shapes the
 * value (defaults, unknown keys of `v.object` dropped), so it cannot reject
 * what the schema accepted (valibot counts string lengths in UTF-16 units,
 * JSON Schema in code points; its regex engine is not the registry's). An
 * action checked by a regular expression is published as the exact pattern
 * (action-patterns.ts); one JSON Schema could publish only as an annotation
 * (`format`, `contentEncoding`: not checked) is refused at definition time,
 * with the fix.
 */
import * as v from 'valibot';
import { MAX_JSON_DEPTH } from '../../bounds.js';
import { exactPattern } from './action-patterns.js';

/** Actions published as an annotation only, with what they are published as. */
const ANNOTATION_ONLY: Readonly<Record<string, string>> = {
  email: 'format "email"',
  rfc_email: 'format "email"',
  url: 'format "uri"',
  uuid: 'format "uuid"',
  ipv4: 'format "ipv4"',
  ipv6: 'format "ipv6"',
  iso_date: 'format "date"',
  iso_date_time: 'format "date-time"',
  iso_timestamp: 'format "date-time"',
  iso_time: 'format "time"',
  base64: 'contentEncoding "base64"',
};

// A valibot schema or pipe item, read field by field.
type Node = Record<string, unknown>;

const isNode = (value: unknown): value is Node => typeof value === 'object' && value !== null;
const isSchema = (value: unknown): value is v.GenericSchema => isNode(value) && value.kind === 'schema';
const PIPE_ITEM_KINDS: readonly unknown[] = ['schema', 'validation', 'transformation', 'metadata'];
const isPipeItem = (value: unknown): value is v.GenericPipeItem => isNode(value) && PIPE_ITEM_KINDS.includes(value.kind);

// The child schemas of a valibot schema node, under the property names its `~run` reads them from.
const CHILD_KEYS = ['item', 'wrapped', 'key', 'value', 'rest'] as const;
const LIST_KEYS = ['options', 'items'] as const;

/** The pattern an action is published as, when its check is a regular expression a pattern can state exactly. */
export function actionPattern(action: { type?: unknown; requirement?: unknown }): string | undefined {
  return action.requirement instanceof RegExp ? exactPattern(action.requirement) : undefined;
}

/** Each action of `schema` that would be published as an annotation only: `[path, action type, published as]`. */
export function annotationOnlyActions(schema: v.GenericSchema): [string, string, string][] {
  const found: [string, string, string][] = [];
  const walk = (schema: v.GenericSchema, path: string, depth: number): void => {
    if (depth > MAX_JSON_DEPTH) return; // a schema this deep is refused elsewhere; never recurse without a bound
    const node: Node = { ...schema };
    if (Array.isArray(node.pipe)) {
      const [base, ...items]: unknown[] = node.pipe;
      for (const item of items) {
        if (!isNode(item)) continue;
        const type = String(item.type);
        if (item.kind === 'validation' && ANNOTATION_ONLY[type] !== undefined && actionPattern(item) === undefined)
          found.push([path || '/', type, ANNOTATION_ONLY[type]]);
        if (isSchema(item) && item !== base) walk(item, path, depth + 1);
      }
      if (isSchema(base)) walk(base, path, depth + 1);
      return; // the piped node repeats its base's children: they were walked through the base
    }
    if (isNode(node.entries))
      for (const [key, child] of Object.entries(node.entries)) if (isSchema(child)) walk(child, `${path}/${key}`, depth + 1);
    // An optional, nullable or union member is the same place; an array item or a record value is one level down.
    const under = (key: string) => (key === 'wrapped' || key === 'options' || key === 'key' ? path : `${path}/*`);
    for (const key of CHILD_KEYS) {
      const child = node[key];
      if (isSchema(child)) walk(child, under(key), depth + 1);
    }
    for (const key of LIST_KEYS) {
      const list = node[key];
      if (Array.isArray(list)) for (const child of list) if (isSchema(child)) walk(child, under(key), depth + 1);
    }
  };
  walk(schema, '', 0);
  return found;
}

/** A copy of `schema` without validation actions: it types and shapes the value; the published schema does the checking. */
export function runtimeSchema(schema: v.GenericSchema): v.GenericSchema {
  const copy = (schema: v.GenericSchema, depth: number): v.GenericSchema => {
    if (depth > MAX_JSON_DEPTH) return schema;
    const node: Node = { ...schema };
    if (Array.isArray(node.pipe)) {
      const [base, ...items]: unknown[] = node.pipe;
      const kept = items
        .filter(isPipeItem)
        .filter((i) => i.kind !== 'validation')
        .map((i) => (isSchema(i) ? copy(i, depth + 1) : i));
      if (!isSchema(base)) return schema; // a valibot pipe starts with its schema
      const rebuilt = copy(base, depth + 1);
      return kept.length === 0 ? rebuilt : v.pipe(rebuilt, ...kept);
    }
    const changed: Node = {}; // valibot's `~run` reads its children through `this`: the copy holds copies of them
    if (isNode(node.entries))
      changed.entries = Object.fromEntries(Object.entries(node.entries).map(([k, c]) => [k, isSchema(c) ? copy(c, depth + 1) : c]));
    for (const key of CHILD_KEYS) {
      const child = node[key];
      if (isSchema(child)) changed[key] = copy(child, depth + 1);
    }
    for (const key of LIST_KEYS) {
      const list = node[key];
      if (Array.isArray(list)) changed[key] = list.map((c: unknown) => (isSchema(c) ? copy(c, depth + 1) : c));
    }
    return Object.assign({ ...schema }, changed);
  };
  return copy(schema, 0);
}
