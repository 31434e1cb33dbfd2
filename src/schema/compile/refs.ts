/**
 * Offline reference checks (S5), run at load time on the private copy after
 * cfworker has indexed it.
 *
 * cfworker compiles a `$ref` to anything and only throws when that branch is
 * validated. Here every `$ref` (and `$recursiveRef`) must resolve to a schema
 * indexed from the schema itself (local pointers, `$defs`/`definitions`,
 * embedded `$id`, `$anchor`); external and dangling references fail, and so do
 * reference cycles that never descend into the instance (they would recurse
 * forever). Nothing is ever fetched or read.
 */
import { SUBSCHEMA_ARRAY_KEYWORDS, SUBSCHEMA_KEYWORDS, SUBSCHEMA_MAP_KEYWORDS } from './dialects.js';
import { appendPointer } from '../pointer.js';
import { isPlainObject } from '../../json.js';

/** An index of schemas by absolute URI, as cfworker builds it. */
export type SchemaLookup = Record<string, unknown>;

/** A reference problem found at load time. */
export interface RefProblem {
  reason: 'external_ref' | 'dangling_ref' | 'ref_cycle';
  pointer: string;
  message: string;
}

type Indexed = Record<string, unknown>;

// The absolute URI cfworker's indexing wrote on a node for its `$ref` (or `$recursiveRef`).
function absoluteRef(node: Indexed, key: '__absolute_ref__' | '__absolute_recursive_ref__'): string | undefined {
  const uri = node[key];
  return typeof uri === 'string' ? uri : undefined;
}

// Applicators that evaluate the same instance location: a cycle made only of
// these (and references) never makes progress.
const IN_PLACE_SINGLE = ['not', 'if', 'then', 'else'];
const IN_PLACE_ARRAY = ['allOf', 'anyOf', 'oneOf'];
const IN_PLACE_MAP = ['dependentSchemas', 'dependencies'];

/** Calls `visit` for every subschema object of `root`, with its pointer. */
export function forEachSchema(root: unknown, visit: (node: Indexed, pointer: string) => void): void {
  const walk = (node: unknown, pointer: string): void => {
    if (!isPlainObject(node)) return;
    visit(node, pointer);
    for (const key of Object.keys(node)) {
      const value = node[key];
      const at = appendPointer(pointer, key);
      if (SUBSCHEMA_ARRAY_KEYWORDS.has(key) && Array.isArray(value)) {
        value.forEach((item, i) => walk(item, appendPointer(at, String(i))));
      } else if (SUBSCHEMA_KEYWORDS.has(key)) {
        walk(value, at);
      } else if (SUBSCHEMA_MAP_KEYWORDS.has(key) && isPlainObject(value)) {
        for (const name of Object.keys(value)) walk(value[name], appendPointer(at, name));
      }
    }
  };
  walk(root, '');
}

/** Checks every reference of `root` against `lookup`; returns the first problem. */
export function checkReferences(root: unknown, lookup: SchemaLookup): RefProblem | undefined {
  const bases = new Set(Object.keys(lookup).map(stripFragment));
  const pointers = new Map<Indexed, string>();
  let problem: RefProblem | undefined;
  forEachSchema(root, (node, pointer) => {
    pointers.set(node, pointer);
    if (problem !== undefined) return;
    for (const [keyword, uri] of [
      ['$ref', absoluteRef(node, '__absolute_ref__')],
      ['$recursiveRef', absoluteRef(node, '__absolute_recursive_ref__')],
    ] as const) {
      if (uri === undefined || lookup[uri] !== undefined) continue;
      const at = appendPointer(pointer, keyword);
      problem = bases.has(stripFragment(uri))
        ? { reason: 'dangling_ref', pointer: at, message: 'the reference points to a location that does not exist in the schema' }
        : {
            reason: 'external_ref',
            pointer: at,
            message: 'the reference points outside the schema; every reference must resolve inside the schema itself (nothing is fetched)',
          };
      return;
    }
  });
  return problem ?? findCycle(pointers, lookup);
}

function stripFragment(uri: string): string {
  const hash = uri.indexOf('#');
  return hash === -1 ? uri : uri.slice(0, hash);
}

function inPlaceTargets(node: Indexed, lookup: SchemaLookup): Indexed[] {
  const out: unknown[] = [];
  for (const key of ['__absolute_ref__', '__absolute_recursive_ref__'] as const) {
    const uri = absoluteRef(node, key);
    if (uri !== undefined) out.push(lookup[uri]);
  }
  for (const key of IN_PLACE_SINGLE) if (node[key] !== undefined) out.push(node[key]);
  for (const key of IN_PLACE_ARRAY) {
    const value = node[key];
    if (Array.isArray(value)) out.push(...value);
  }
  for (const key of IN_PLACE_MAP) {
    const value = node[key];
    if (isPlainObject(value)) out.push(...Object.values(value).filter((v) => !Array.isArray(v)));
  }
  return out.filter(isPlainObject);
}

function findCycle(pointers: Map<Indexed, string>, lookup: SchemaLookup): RefProblem | undefined {
  const state = new Map<Indexed, 1 | 2>(); // 1: on the current path, 2: done
  const visit = (node: Indexed): Indexed | undefined => {
    state.set(node, 1);
    for (const next of inPlaceTargets(node, lookup)) {
      const seen = state.get(next);
      if (seen === 1) return next;
      if (seen === undefined) {
        const found = visit(next);
        if (found !== undefined) return found;
      }
    }
    state.set(node, 2);
    return undefined;
  };
  for (const node of pointers.keys()) {
    if (state.has(node)) continue;
    const looped = visit(node);
    if (looped !== undefined) {
      const at = pointers.get(looped) ?? '';
      return {
        reason: 'ref_cycle',
        pointer: at,
        message: 'the references here form a cycle that never descends into the arguments, so validation could never finish',
      };
    }
  }
  return undefined;
}
