/**
 * The load pipeline of one JSON Schema, on top of cfworker (the only module
 * besides metaschemas.ts that imports it).
 *
 * dialect (S1) → metaschema (S7) → private copy (S2, S6) → regexes (S7) →
 * cfworker index → offline references (S5). Any failure throws an AgtError
 * `schema_load_failed` that names the tool, the schema location and the reason.
 * Tool-argument rules (S3) are added by ToolSchemaRegistry; this layer is plain
 * JSON Schema, which is what the official test suite exercises.
 */
import { isSimplePattern } from './patterns.js';
import { dereference, type Schema, validate as cfValidate } from '@cfworker/json-schema';
import { AgtError } from '../../errors.js';
import { cfDraftOf, DEFAULT_DIALECT, type Dialect, dialectLabel, dialectOfUri } from './dialects.js';
import { type ArgumentIssue, missingRootIssue, toIssues } from '../issues/issues.js';
import { checkAgainstMetaschema } from './metaschemas.js';
import { tokensToPointer } from '../pointer.js';
import { defined, isPlainObject } from '../../json.js';
import { MAX_VALIDATION_ISSUES } from '../../bounds.js';
import { quickCheck } from './fast-valid.js';
import { prepareSchema } from './prepare.js';
import { checkReferences } from './refs.js';

/** Why a schema failed to load (`details.reason` of schema_load_failed). */
export type SchemaLoadReason =
  | 'not_json'
  | 'not_a_schema'
  | 'unknown_dialect'
  | 'embedded_dialect'
  | 'invalid_schema'
  | 'invalid_pattern'
  | 'unsafe_pattern'
  | 'unsupported_keyword'
  | 'reserved_key'
  | 'external_ref'
  | 'dangling_ref'
  | 'ref_cycle'
  | 'root_not_object';

/**
 * The result of validating an instance; `validate` never throws. `issues`
 * holds at most MAX_VALIDATION_ISSUES (or the `maxIssues` asked for), in
 * schema order; `issuesOmitted` counts the further errors the validator
 * reported, when there were any (not built, not deduplicated).
 */
export type ValidationResult = { ok: true } | { ok: false; issues: ArgumentIssue[]; issuesOmitted?: number };

/** How much of an invalid instance's problems to build. */
export interface ValidateOptions {
  /**
   * The most issues to build. Default MAX_VALIDATION_ISSUES (20). `1` asks
   * for validity and the first problem only: the validator stops at the first
   * failing keyword (no `issuesOmitted` then).
   */
  maxIssues?: number;
}

/** A loaded schema, ready to validate instances. */
export interface CompiledJsonSchema {
  readonly dialect: Dialect;
  validate(instance: unknown, options?: ValidateOptions): ValidationResult;
}

/** Options of {@link compileJsonSchema}. */
export interface CompileJsonSchemaOptions {
  /** Names the schema's owner in error messages. */
  tool: string;
  /**
   * Extra schema documents by absolute URI, held in memory. Only the conformance
   * suite uses this (for its `remotes/`); tool schemas must be self-contained (S5).
   */
  documents?: Readonly<Record<string, unknown>>;
}

const OK: ValidationResult = Object.freeze({ ok: true });

/** Builds a schema_load_failed error. */
export function schemaLoadFailed(tool: string, reason: SchemaLoadReason, schemaPath: string, what: string, dialect?: Dialect): AgtError {
  const where = schemaPath === '' ? '' : ` at "${schemaPath}"`;
  return new AgtError('schema_load_failed', `tool "${tool}": inputSchema failed to load${where}: ${what}`, {
    details: { tool, reason, schemaPath, ...defined({ dialect }) },
  });
}

/** The dialect a schema selects through its root `$schema` (S1). */
export function selectDialect(schema: unknown, tool: string): Dialect {
  if (!isPlainObject(schema) || schema.$schema === undefined) return DEFAULT_DIALECT;
  const uri = schema.$schema;
  const dialect = typeof uri === 'string' ? dialectOfUri(uri) : undefined;
  if (dialect === undefined) {
    throw schemaLoadFailed(
      tool,
      'unknown_dialect',
      '/$schema',
      '"$schema" must name draft-04, draft-07, 2019-09 or 2020-12 by its standard URI, or be left out (2020-12 is the default)',
    );
  }
  return dialect;
}

/** Loads a JSON value (already JSON-clean) as a schema; throws schema_load_failed. */
export function compileJsonSchema(schema: unknown, options: CompileJsonSchemaOptions): CompiledJsonSchema {
  const { tool } = options;
  if (typeof schema !== 'boolean' && !isPlainObject(schema)) {
    throw schemaLoadFailed(tool, 'not_a_schema', '', 'a schema must be a JSON object (or a boolean)');
  }
  const dialect = selectDialect(schema, tool);
  const violation = checkAgainstMetaschema(schema, dialect);
  if (violation !== undefined) {
    throw schemaLoadFailed(tool, 'invalid_schema', violation.pointer, violation.message, dialect);
  }
  const falseMarkers = new WeakSet<object>();
  const rootSchemaUri = isPlainObject(schema) && typeof schema.$schema === 'string' ? schema.$schema : undefined;
  const prepared = prepareSchema(schema, { dialect, falseMarkers, ...(rootSchemaUri ? { rootSchemaUri } : {}) });
  const problem = prepared.problems[0];
  if (problem !== undefined) {
    throw schemaLoadFailed(tool, problem.reason, problem.pointer, problemText(problem.reason, problem.keyword, dialect), dialect);
  }
  for (const pattern of prepared.patterns) {
    try {
      new RegExp(pattern.source, 'u'); // S7: cfworker would only throw at validate time
    } catch {
      throw schemaLoadFailed(tool, 'invalid_pattern', pattern.pointer, 'not a valid regular expression (Unicode mode)', dialect);
    }
    // ReDoS: a pattern runs in linear time (re2), or natively only when its shape cannot backtrack badly.
    if (pattern.re2 === undefined && !isSimplePattern(pattern.source)) {
      throw schemaLoadFailed(
        tool,
        'unsafe_pattern',
        pattern.pointer,
        'this regular expression could take exponential time on some inputs (nested or repeated quantifiers with lookarounds or back references, or in patternProperties); simplify it',
        dialect,
      );
    }
  }
  const root = prepared.copy;
  const draft = cfDraftOf(dialect);
  let lookup: Record<string, Schema | boolean>;
  try {
    lookup = dereference(root as object);
    for (const [uri, document] of Object.entries(options.documents ?? {})) {
      const declared = isPlainObject(document) && typeof document.$schema === 'string' ? dialectOfUri(document.$schema) : undefined;
      const docDialect = declared ?? dialect;
      const docCopy = prepareSchema(document, { dialect: docDialect, falseMarkers }).copy;
      dereference(isPlainObject(docCopy) ? { ...docCopy, $id: uri } : (docCopy as object), lookup);
    }
  } catch {
    throw schemaLoadFailed(tool, 'invalid_schema', '', 'two subschemas declare the same "$id"', dialect);
  }
  const refProblem = checkReferences(root, lookup);
  if (refProblem !== undefined) {
    throw schemaLoadFailed(tool, refProblem.reason, refProblem.pointer, refProblem.message, dialect);
  }
  // The root's own `required` (not beside a root `$ref`, which older dialects read alone): a short cut for validity checks.
  const rootRequired =
    isPlainObject(root) && root.$ref === undefined && Array.isArray(root.required) && root.required.every((k) => typeof k === 'string')
      ? (root.required as string[])
      : undefined;
  // The common shape of tool arguments gets a quick "certainly valid" (fast-valid.ts); the validator decides the rest.
  const quick = quickCheck(root, (node) => falseMarkers.has(node as object));
  return {
    dialect,
    validate(instance: unknown, options?: ValidateOptions): ValidationResult {
      if (quick !== undefined && quick(instance) === true) return OK;
      const max = Math.max(1, Math.min(options?.maxIssues ?? MAX_VALIDATION_ISSUES, MAX_VALIDATION_ISSUES));
      if (max === 1 && rootRequired !== undefined && isPlainObject(instance)) {
        // Validity only: a property the root requires and the object lacks settles it, whatever else the schema says.
        for (const key of rootRequired) if (!Object.hasOwn(instance, key)) return { ok: false, issues: [missingRootIssue(key)] };
      }
      try {
        const result = cfValidate(instance, root as object, draft, lookup, max === 1);
        if (result.valid) return OK;
        const context = { root, lookup, falseMarkers, instance };
        let { issues, omitted } = toIssues(result.errors, context, max);
        // A short-circuited run that stopped on a wrapper alone names nothing: the full run names the first problem.
        if (issues.length === 0 && max === 1)
          issues = toIssues(cfValidate(instance, root as object, draft, lookup, false).errors, context, 1).issues;
        return omitted > 0 && max > 1 ? { ok: false, issues, issuesOmitted: omitted } : { ok: false, issues };
      } catch {
        // cfworker throws on non-JSON input (undefined, BigInt, cycles); its text is not used.
        return { ok: false, issues: [nonJsonIssue(instance)] };
      }
    },
  };
}

function problemText(reason: SchemaLoadReason, keyword: string, dialect: Dialect): string {
  switch (reason) {
    case 'reserved_key':
      return `"${keyword}": keys starting with "__absolute_" are reserved by the validator`;
    case 'unsupported_keyword':
      return `"${keyword}" is not supported (dynamic references cannot be validated correctly); use "$ref" instead`;
    case 'embedded_dialect':
      return `an embedded "$schema" must match the root's (${dialectLabel(dialect)})`;
    default:
      return 'invalid schema';
  }
}

/** Locates the first value that JSON cannot carry, without echoing it. */
function nonJsonIssue(instance: unknown): ArgumentIssue {
  const seen = new Set<object>();
  const find = (value: unknown, path: string[]): { path: string[]; what: string } | undefined => {
    const type = typeof value;
    if (type === 'undefined' || type === 'bigint' || type === 'function' || type === 'symbol') {
      return { path, what: `a ${type} value is not JSON` };
    }
    if (type !== 'object' || value === null) return undefined;
    if (seen.has(value as object)) return { path, what: 'a circular structure is not JSON' };
    seen.add(value as object);
    const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value as object);
    for (const [key, child] of entries) {
      const found = find(child, [...path, key]);
      if (found !== undefined) return found;
    }
    seen.delete(value as object);
    return undefined;
  };
  const found = find(instance, []);
  return {
    instancePath: found === undefined ? '' : tokensToPointer(found.path),
    schemaPath: '',
    keyword: 'type',
    message: found?.what ?? 'the arguments could not be validated',
  };
}
