/**
 * The JSON Schema dialects the registry supports, how a `$schema` URI selects
 * one (S1), and which keywords each dialect gives meaning to (S2).
 */

/** A supported JSON Schema dialect. */
export type Dialect = 'draft-04' | 'draft-07' | '2019-09' | '2020-12';

/** The dialect of a schema that does not say (S1). */
export const DEFAULT_DIALECT: Dialect = '2020-12';

// The standard spellings only (S1): draft-04/07 use http, 2019-09/2020-12 https;
// each with or without the empty fragment.
const DIALECT_BY_URI: ReadonlyMap<string, Dialect> = new Map([
  ['http://json-schema.org/draft-04/schema', 'draft-04'],
  ['http://json-schema.org/draft-07/schema', 'draft-07'],
  ['https://json-schema.org/draft/2019-09/schema', '2019-09'],
  ['https://json-schema.org/draft/2020-12/schema', '2020-12'],
]);

/** The dialect a `$schema` URI names, or undefined when it names none we support. */
export function dialectOfUri(uri: string): Dialect | undefined {
  const bare = uri.endsWith('#') ? uri.slice(0, -1) : uri;
  return DIALECT_BY_URI.get(bare);
}

/** cfworker's name for a dialect. */
export type CfDraft = '4' | '7' | '2019-09' | '2020-12';

/** Maps a dialect to the draft argument cfworker expects. */
export function cfDraftOf(dialect: Dialect): CfDraft {
  switch (dialect) {
    case 'draft-04':
      return '4';
    case 'draft-07':
      return '7';
    default:
      return dialect;
  }
}

/** Human label used in messages ("draft-07", "2020-12"). */
export function dialectLabel(dialect: Dialect): string {
  return dialect.startsWith('draft') ? dialect : `draft ${dialect}`;
}

const DRAFT4_ONLY = ['id', 'dependencies', 'additionalItems'];
const DRAFT7_EXTRA = ['$id', 'const', 'contains', 'propertyNames', 'if', 'then', 'else'];
const MODERN = [
  '$id',
  '$anchor',
  'const',
  'contains',
  'propertyNames',
  'if',
  'then',
  'else',
  'unevaluatedItems',
  'unevaluatedProperties',
  'dependentRequired',
  'dependentSchemas',
  'minContains',
  'maxContains',
];

// Of the keywords cfworker evaluates in every dialect (CF_EVALUATED), the ones each dialect defines.
const DEFINED: Record<Dialect, ReadonlySet<string>> = {
  'draft-04': new Set(DRAFT4_ONLY),
  'draft-07': new Set(['dependencies', 'additionalItems', ...DRAFT7_EXTRA]),
  '2019-09': new Set([...MODERN, '$recursiveRef', '$recursiveAnchor', 'additionalItems']),
  '2020-12': new Set([...MODERN, 'prefixItems']),
};

/**
 * Keywords cfworker evaluates (asserts or applies) regardless of dialect: the
 * union of the above. A keyword in this set that the selected dialect does
 * not define must be removed from the private copy so that it stays an
 * annotation (S2).
 */
const CF_EVALUATED: ReadonlySet<string> = new Set(Object.values(DEFINED).flatMap((keywords) => [...keywords]));

/** True when cfworker would evaluate `keyword` but `dialect` gives it no meaning. */
export function isForeignKeyword(dialect: Dialect, keyword: string): boolean {
  return CF_EVALUATED.has(keyword) && !DEFINED[dialect].has(keyword);
}

/** Keywords whose value is one subschema. */
export const SUBSCHEMA_KEYWORDS: ReadonlySet<string> = new Set([
  'items',
  'additionalItems',
  'unevaluatedItems',
  'contains',
  'additionalProperties',
  'unevaluatedProperties',
  'propertyNames',
  'not',
  'if',
  'then',
  'else',
  'contentSchema',
]);

/** Keywords whose value is an array of subschemas (`items` only in its array form). */
export const SUBSCHEMA_ARRAY_KEYWORDS: ReadonlySet<string> = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems', 'items']);

/**
 * Keywords whose value maps names to subschemas. `$defs` and `definitions` are
 * walked in every dialect, as cfworker resolves pointers into both everywhere.
 */
export const SUBSCHEMA_MAP_KEYWORDS: ReadonlySet<string> = new Set([
  'properties',
  'patternProperties',
  '$defs',
  'definitions',
  'dependentSchemas',
  'dependencies',
]);

/** Keywords that reference other schemas and are not supported (rejected at load). */
export const UNSUPPORTED_KEYWORDS: Record<Dialect, readonly string[]> = {
  'draft-04': [],
  'draft-07': [],
  '2019-09': [],
  // cfworker silently ignores these; validating as if they were absent would be wrong.
  '2020-12': ['$dynamicRef', '$dynamicAnchor'],
};
