/**
 * Builds the private copy of a schema that cfworker is allowed to see.
 *
 * cfworker mutates the schemas it is given, evaluates every keyword it knows in
 * every dialect and asserts `format`. One walk over the caller's schema makes a
 * deep copy in which those differences are corrected, without moving any other
 * keyword (so schema paths stay the caller's paths):
 * - keywords the dialect does not define are dropped (S2: they are annotations);
 * - `format` is dropped (S6: an annotation; see docs/schema.md for draft-04/07);
 * - a `false` subschema becomes a marked `{ not: {} }` so errors get a location;
 * - regexes are collected for a compile check (S7);
 * - reserved `__absolute_*` keys, unsupported keywords and a differing embedded
 *   `$schema` are reported as problems.
 */
import { PATTERN_FORMAT, rememberPattern, toRe2 } from './patterns.js';
import {
  type Dialect,
  isForeignKeyword,
  SUBSCHEMA_ARRAY_KEYWORDS,
  SUBSCHEMA_KEYWORDS,
  SUBSCHEMA_MAP_KEYWORDS,
  UNSUPPORTED_KEYWORDS,
} from './dialects.js';
import { defined, isPlainObject, setOwn } from '../../json.js';
import { appendPointer } from '../pointer.js';

/** Something in a schema that makes it fail to load, with where it is. */
export interface PrepareProblem {
  reason: 'reserved_key' | 'unsupported_keyword' | 'embedded_dialect';
  pointer: string;
  keyword: string;
}

/** A regex source found in the schema, with where it is. */
export interface FoundPattern {
  pointer: string;
  source: string;
  /** `pattern` (a value's) or `patternProperties` (property names, matched by cfworker itself). */
  keyword: 'pattern' | 'patternProperties';
  /** For `pattern`: its RE2 translation, run in linear time (patterns.ts); undefined when RE2 cannot say it. */
  re2?: string;
}

/** The private copy and what the walk found. */
export interface PreparedSchema {
  copy: unknown;
  patterns: FoundPattern[];
  problems: PrepareProblem[];
}

/** Options of {@link prepareSchema}. */
export interface PrepareOptions {
  dialect: Dialect;
  /** Objects standing in for `false` subschemas are added here. */
  falseMarkers: WeakSet<object>;
  /** The root's `$schema`, if any: an embedded one must equal it. */
  rootSchemaUri?: string;
  /** For our own metaschemas only: `$dynamicRef` becomes a `$ref` to this URI. */
  dynamicRefTarget?: string;
}

const DATA_KEYWORDS = new Set([
  'enum',
  'const',
  'default',
  'examples',
  'required',
  'type',
  'dependentRequired',
  '$comment',
  'title',
  'description',
  '$vocabulary',
  'contentMediaType',
  'contentEncoding',
]);

/** Makes the private copy of `schema` for cfworker (see the module comment). */
export function prepareSchema(schema: unknown, options: PrepareOptions): PreparedSchema {
  const state: PreparedSchema = { copy: undefined, patterns: [], problems: [] };
  state.copy = prepareNode(schema, '', options, state);
  return state;
}

function prepareNode(node: unknown, pointer: string, o: PrepareOptions, s: PreparedSchema): unknown {
  if (node === false) {
    const marker = { not: {} };
    o.falseMarkers.add(marker);
    return marker;
  }
  if (!isPlainObject(node)) return cloneData(node);
  const out: Record<string, unknown> = {};
  const unsupported = UNSUPPORTED_KEYWORDS[o.dialect];
  for (const key of Object.keys(node)) {
    const value = node[key];
    if (value === undefined) continue;
    const at = appendPointer(pointer, key);
    if (key.startsWith('__absolute_')) {
      s.problems.push({ reason: 'reserved_key', pointer: at, keyword: key });
      continue;
    }
    if (o.dynamicRefTarget !== undefined && (key === '$dynamicRef' || key === '$dynamicAnchor')) {
      if (key === '$dynamicRef') out.$ref = o.dynamicRefTarget;
      continue;
    }
    if (unsupported.includes(key)) {
      s.problems.push({ reason: 'unsupported_keyword', pointer: at, keyword: key });
      continue;
    }
    if (key === '$schema' && pointer !== '' && value !== o.rootSchemaUri) {
      s.problems.push({ reason: 'embedded_dialect', pointer: at, keyword: key });
      continue;
    }
    if (key === 'format' || isForeignKeyword(o.dialect, key)) continue; // S2, S6
    if (key === 'pattern' && typeof value === 'string') {
      const re2 = toRe2(value);
      s.patterns.push({ pointer: at, source: value, keyword: 'pattern', ...defined({ re2 }) });
      if (re2 !== undefined) {
        setOwn(out, 'format', PATTERN_FORMAT + re2); // run in linear time; `format` itself is never kept (S6)
        rememberPattern(out, value);
        continue;
      }
    }
    setOwn(out, key, prepareValue(key, value, at, o, s));
  }
  return out;
}

function prepareValue(key: string, value: unknown, at: string, o: PrepareOptions, s: PreparedSchema): unknown {
  if (DATA_KEYWORDS.has(key)) return cloneData(value);
  if (SUBSCHEMA_ARRAY_KEYWORDS.has(key) && Array.isArray(value)) {
    return value.map((item, i) => prepareNode(item, appendPointer(at, String(i)), o, s));
  }
  if (SUBSCHEMA_KEYWORDS.has(key)) return prepareNode(value, at, o, s);
  if (SUBSCHEMA_MAP_KEYWORDS.has(key) && isPlainObject(value)) {
    const map: Record<string, unknown> = {};
    for (const name of Object.keys(value)) {
      const entry = value[name];
      if (entry === undefined) continue;
      if (key === 'patternProperties') s.patterns.push({ pointer: appendPointer(at, name), source: name, keyword: 'patternProperties' });
      // `dependencies` mixes schemas with property lists (arrays of names).
      setOwn(map, name, Array.isArray(entry) ? cloneData(entry) : prepareNode(entry, appendPointer(at, name), o, s));
    }
    return map;
  }
  return cloneData(value);
}

function cloneData(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(cloneData);
  if (isPlainObject(value)) {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value)) {
      if (value[key] !== undefined) setOwn(out, key, cloneData(value[key]));
    }
    return out;
  }
  return value;
}
