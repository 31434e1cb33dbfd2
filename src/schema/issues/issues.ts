/**
 * Turns cfworker's output units into {@link ArgumentIssue}s (S8).
 *
 * cfworker's texts echo instance values and keys ("1234.5 is greater than 20.",
 * `Property "x" …`), so none of its text is used: each message is built from the
 * keyword and the *schema's* values (issue-messages.ts). Its URI-fragment locations become plain
 * JSON Pointers, its wrapper entries ("a subschema had errors") are dropped and
 * its known wrong locations are corrected (false schemas, `dependantRequired`).
 */
import type { OutputUnit } from '@cfworker/json-schema';
import { fragmentTokens, tokensToPointer } from '../pointer.js';
import { isPlainObject } from '../../json.js';
import { originalPattern, PATTERN_FORMAT } from '../compile/patterns.js';
import type { SchemaLookup } from '../compile/refs.js';
import { MAX_JSON_DEPTH } from '../../bounds.js';
import { falseMessage, messageFor, missingMessage } from './issue-messages.js';

/** One reason why arguments are invalid; never contains an argument value. */
export interface ArgumentIssue {
  /** JSON Pointer to the offending field in the arguments ('' = the arguments). */
  instancePath: string;
  /** JSON Pointer to the failing keyword, as evaluated (through `$ref`s). */
  schemaPath: string;
  keyword: string;
  message: string;
}

/** What the mapper needs to read schema values at an evaluated location. */
export interface IssueContext {
  root: unknown;
  lookup: SchemaLookup;
  falseMarkers: WeakSet<object>;
  instance: unknown;
}

// Entries that only say "something below failed"; what failed follows them.
const WRAPPERS = new Set([
  '$ref',
  '$recursiveRef',
  'properties',
  'patternProperties',
  'additionalProperties',
  'unevaluatedProperties',
  'propertyNames',
  'items',
  'prefixItems',
  'additionalItems',
  'unevaluatedItems',
  'dependentSchemas',
  'allOf',
  'if',
]);

/**
 * Maps cfworker errors to at most `max` issues, deduplicated, in cfworker's
 * (schema) order. Past the bound nothing is built: the errors left are only
 * counted (`omitted`, wrappers left out, not deduplicated).
 */
export function toIssues(errors: readonly OutputUnit[], ctx: IssueContext, max: number): { issues: ArgumentIssue[]; omitted: number } {
  const issues: ArgumentIssue[] = [];
  const seen = new Set<string>();
  const missingQueues = new Map<string, string[][]>();
  let omitted = 0;
  for (let i = 0; i < errors.length; i++) {
    const error = errors[i] as OutputUnit;
    if (isDropped(error, errors[i + 1])) continue;
    if (issues.length >= max) {
      omitted += 1;
      continue;
    }
    const issue = toIssue(error, ctx, missingQueues);
    const key = `${issue.instancePath}\0${issue.schemaPath}\0${issue.message}`;
    if (!seen.has(key)) {
      seen.add(key);
      issues.push(issue);
    }
  }
  return { issues, omitted };
}

// Keywords whose value may be the false schema, reported under their own name.
const FALSE_HOLDERS = new Set([
  'additionalProperties',
  'unevaluatedProperties',
  'items',
  'additionalItems',
  'unevaluatedItems',
  'propertyNames',
  'contains',
]);

// Keywords holding false schemas by name or position (properties/<name>: false).
const FALSE_MAPS = new Set([
  'properties',
  'patternProperties',
  'dependentSchemas',
  'dependencies',
  'prefixItems',
  'allOf',
  'anyOf',
  'oneOf',
  '$defs',
]);

const NAME_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas', 'dependencies']);

// An item that does not match `contains` is no error by itself; the
// contains/minContains summary says what is wrong.
function isUnderContains(keywordLocation: string): boolean {
  if (!keywordLocation.includes('/contains/')) return false; // the usual case, without splitting the location
  const tokens = fragmentTokens(keywordLocation);
  for (let i = 0; i < tokens.length - 1; i++) {
    if (tokens[i] === 'contains' && !NAME_MAPS.has(tokens[i - 1] ?? '')) return true;
  }
  return false;
}

function isDropped(error: OutputUnit, next: OutputUnit | undefined): boolean {
  if (WRAPPERS.has(error.keyword) || isUnderContains(error.keywordLocation)) return true;
  // `dependencies` wraps only in its schema form, where its sub-errors follow.
  return error.keyword === 'dependencies' && next !== undefined && next.keywordLocation.startsWith(`${error.keywordLocation}/`);
}

function toIssue(error: OutputUnit, ctx: IssueContext, queues: Map<string, string[][]>): ArgumentIssue {
  const instanceTokens = fragmentTokens(error.instanceLocation);
  const instancePath = tokensToPointer(instanceTokens);
  const tokens = fragmentTokens(error.keywordLocation);
  const parentTokens = tokens.slice(0, -1);
  const schema = resolveEvaluated(ctx, parentTokens);
  if (error.keyword === 'not' && isPlainObject(schema) && ctx.falseMarkers.has(schema)) {
    // A false subschema: the keyword that holds it (additionalProperties, items …) is what failed.
    const holder = parentTokens[parentTokens.length - 1] ?? '';
    const above = parentTokens[parentTokens.length - 2] ?? '';
    // additionalProperties: false, or properties/<name>: false, prefixItems/<i>: false …; only a false root schema has no keyword.
    const keyword = FALSE_HOLDERS.has(holder) ? holder : FALSE_MAPS.has(above) ? above : 'false';
    return { instancePath, schemaPath: tokensToPointer(parentTokens), keyword, message: falseMessage(parentTokens) };
  }
  if (error.keyword === 'false') {
    // A false schema cfworker met unconverted: its location is the instance's.
    return { instancePath, schemaPath: '', keyword: 'false', message: 'no value is allowed here' };
  }
  const node = isPlainObject(schema) ? schema : {};
  if (error.keyword === 'format' && typeof node.format === 'string' && node.format.startsWith(PATTERN_FORMAT)) {
    // A pattern run in linear time (patterns.ts): reported as the `pattern` it is in the server's schema.
    const at = tokensToPointer([...parentTokens, 'pattern']);
    return { instancePath, schemaPath: at, keyword: 'pattern', message: messageFor('pattern', { pattern: originalPattern(node) ?? '' }) };
  }
  const keyword = error.keyword;
  if (keyword === 'required' || keyword === 'dependentRequired' || keyword === 'dependencies') {
    const queueKey = `${error.instanceLocation}\0${error.keywordLocation}`;
    let queue = queues.get(queueKey);
    if (queue === undefined) {
      queue = missingPairs(keyword, node, resolveInstance(ctx.instance, instanceTokens));
      queues.set(queueKey, queue);
    }
    const [property, trigger] = queue.shift() ?? [];
    const schemaTokens = keyword === 'required' ? tokens : [...parentTokens, keyword, ...(trigger ? [trigger] : [])];
    return { instancePath, schemaPath: tokensToPointer(schemaTokens), keyword, message: missingMessage(property, trigger) };
  }
  return { instancePath, schemaPath: tokensToPointer(tokens), keyword, message: messageFor(keyword, node) };
}

/** Follows an evaluated location from the root, jumping through references. */
function resolveEvaluated(ctx: IssueContext, tokens: readonly string[]): unknown {
  let node: unknown = ctx.root;
  for (const token of tokens) {
    if (!isPlainObject(node)) return undefined;
    if (token === '$ref' || token === '$recursiveRef') {
      const uri = node[token === '$ref' ? '__absolute_ref__' : '__absolute_recursive_ref__'];
      node = typeof uri === 'string' ? ctx.lookup[uri] : undefined;
    } else {
      node = node[token];
    }
    if (Array.isArray(node)) node = wrapArray(node);
  }
  return node;
}

// Lets array indexes be followed like object keys.
function wrapArray(items: unknown[]): Record<string, unknown> {
  return Object.fromEntries(items.map((item, i) => [String(i), item]));
}

function resolveInstance(instance: unknown, tokens: readonly string[]): unknown {
  let node = instance;
  for (const token of tokens) {
    if (typeof node !== 'object' || node === null) return undefined;
    node = (node as Record<string, unknown>)[token];
  }
  return node;
}

/** [missing property, property that required it] pairs, in cfworker's order. */
function missingPairs(keyword: string, node: Record<string, unknown>, instance: unknown): string[][] {
  if (!isPlainObject(instance)) return [];
  const has = (k: string): boolean => Object.prototype.hasOwnProperty.call(instance, k);
  if (keyword === 'required') {
    const required = Array.isArray(node.required) ? node.required : [];
    return required.filter((k): k is string => typeof k === 'string' && !has(k)).map((k) => [k]);
  }
  const map = node[keyword];
  if (!isPlainObject(map)) return [];
  const pairs: string[][] = [];
  for (const trigger of Object.keys(map)) {
    const needs = map[trigger];
    if (!has(trigger) || !Array.isArray(needs)) continue;
    for (const k of needs) if (typeof k === 'string' && !has(k)) pairs.push([k, trigger]);
  }
  return pairs;
}

/** The issue of a property `required` at the root that an object lacks (what toIssue builds for it). */
export function missingRootIssue(property: string): ArgumentIssue {
  return { instancePath: '', schemaPath: '/required', keyword: 'required', message: missingMessage(property, undefined) };
}

/** The property names a schema declares (keys of every `properties`, and `required` entries), at any depth up to MAX_JSON_DEPTH levels. */
export function declaredNames(schema: unknown): ReadonlySet<string> {
  const names = new Set<string>();
  const walk = (node: unknown, depth: number): void => {
    if (depth > MAX_JSON_DEPTH || typeof node !== 'object' || node === null) return;
    if (Array.isArray(node)) {
      for (const item of node) walk(item, depth + 1);
      return;
    }
    const o = node as Record<string, unknown>;
    if (isPlainObject(o.properties)) for (const key of Object.keys(o.properties)) names.add(key);
    if (Array.isArray(o.required)) for (const key of o.required) if (typeof key === 'string') names.add(key);
    for (const value of Object.values(o)) walk(value, depth + 1);
  };
  walk(schema, 0);
  return names;
}

const PROPERTY_KEYWORDS = new Set(['additionalProperties', 'unevaluatedProperties', 'propertyNames']);

/**
 * Issues about data a server sent, safe to show and audit: a property name the
 * schema does not declare is the server's own data, so it never appears — in
 * an instancePath it becomes "*", and an issue about such a property points at
 * its object. Array indexes and declared names stay.
 */
export function serverSafeIssues(issues: readonly ArgumentIssue[], declared: ReadonlySet<string>): ArgumentIssue[] {
  return issues.map((issue) => {
    let tokens =
      issue.instancePath === ''
        ? []
        : issue.instancePath
            .slice(1)
            .split('/')
            .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
    if (PROPERTY_KEYWORDS.has(issue.keyword)) tokens = tokens.slice(0, -1);
    const shown = tokens.map((t) => (declared.has(t) || /^(0|[1-9]\d{0,9})$/.test(t) ? t : '*'));
    return { ...issue, instancePath: tokensToPointer(shown) };
  });
}
