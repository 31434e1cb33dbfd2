/**
 * ToolSchemaRegistry: the one validator for tool arguments (SPEC §6), used by
 * native runs, framework tool entry points and harness dynamic tools alike.
 */
import { AgtError } from '../errors.js';
import { canonicalHash } from './canonical.js';
import {
  type CompiledJsonSchema,
  compileJsonSchema,
  schemaLoadFailed,
  type ValidateOptions,
  type ValidationResult,
} from './compile/compile.js';
import type { Dialect } from './compile/dialects.js';
import type { ArgumentIssue } from './issues/issues.js';
import { LruMap } from './lru.js';
import { isPlainObject } from '../json.js';
import { DEFAULT_SCHEMA_CACHE_SIZE } from '../bounds.js';

/** A tool's inputSchema, loaded and ready to validate arguments. */
export interface CompiledToolSchema {
  readonly dialect: Dialect;
  /** sha256 of the schema's canonical JSON (sorted keys). */
  readonly hash: string;
  /** Validates tool arguments; never throws, never changes `args` (S4). At most `maxIssues` issues are built (default 20). */
  validate(args: unknown, options?: ValidateOptions): ValidationResult;
}

/** Which schema of a tool is compiled. */
export type SchemaPart = 'inputSchema' | 'outputSchema';

/** Options of {@link ToolSchemaRegistry}. */
export interface ToolSchemaRegistryOptions {
  /** How many distinct compiled schemas to keep (least recently used go first). Default 1000. */
  maxCached?: number;
}

// One shared answer, frozen throughout: no caller can change it for the next.
const NOT_AN_OBJECT_ISSUES: ArgumentIssue[] = [
  Object.freeze({ instancePath: '', schemaPath: '', keyword: 'type', message: 'tool arguments must be a JSON object' }),
];
Object.freeze(NOT_AN_OBJECT_ISSUES);
const NOT_AN_OBJECT: ValidationResult = Object.freeze({ ok: false, issues: NOT_AN_OBJECT_ISSUES });

/** Compiles and caches tool inputSchemas; the only door to the JSON Schema engine. */
export class ToolSchemaRegistry {
  // Two keys per schema: its JSON text (cheap to compute, exact) and its
  // canonical hash (key-order independent). A refresh hands us a new object
  // with the same text, which hits the first key without hashing.
  readonly #byText: LruMap<string, CompiledToolSchema>;
  readonly #byHash: LruMap<string, CompiledToolSchema>;

  constructor(options: ToolSchemaRegistryOptions = {}) {
    const max = options.maxCached ?? DEFAULT_SCHEMA_CACHE_SIZE;
    if (!Number.isInteger(max) || max < 1) {
      throw new AgtError('invalid_input', 'ToolSchemaRegistry: maxCached must be a positive integer');
    }
    this.#byText = new LruMap(max);
    this.#byHash = new LruMap(max);
  }

  /**
   * Loads a tool's inputSchema (or, with `part: 'outputSchema'`, its
   * outputSchema: same rules), or throws AgtError `schema_load_failed` naming
   * the tool, the part and the location.
   */
  compile(schema: unknown, options: { tool: string; part?: SchemaPart }): CompiledToolSchema {
    const tool = options?.tool;
    if (typeof tool !== 'string' || tool === '') {
      throw new AgtError('invalid_input', 'ToolSchemaRegistry.compile: options.tool must be the tool name (a non-empty string)');
    }
    if (options.part === undefined || options.part === 'inputSchema') return this.#compile(schema, tool);
    try {
      return this.#compile(schema, tool);
    } catch (error) {
      throw relabel(error, tool, options.part);
    }
  }

  #compile(schema: unknown, tool: string): CompiledToolSchema {
    const text = jsonText(schema, tool);
    const cached = this.#byText.get(text);
    if (cached !== undefined) return cached;
    const clean: unknown = JSON.parse(text);
    const hash = canonicalHash(clean);
    let compiled = this.#byHash.get(hash);
    if (compiled === undefined) {
      compiled = toToolSchema(checkRoot(clean, tool), hash);
      this.#byHash.set(hash, compiled);
    }
    this.#byText.set(text, compiled);
    return compiled;
  }
}

// An outputSchema follows the inputSchema's rules; only the words of the error differ.
function relabel(error: unknown, tool: string, part: SchemaPart): unknown {
  if (!(error instanceof AgtError) || error.code !== 'schema_load_failed') return error;
  const message = error.message
    .replace(`tool "${tool}": inputSchema failed`, `tool "${tool}": ${part} failed`)
    .replace('an inputSchema must be', `an ${part} must be`)
    .replace('tool arguments are a JSON object', 'structured results are JSON objects');
  return new AgtError('schema_load_failed', message, { details: { ...error.details, part } });
}

function jsonText(schema: unknown, tool: string): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(schema);
  } catch {
    text = undefined; // BigInt or a cycle
  }
  if (text === undefined) {
    throw schemaLoadFailed(tool, 'not_json', '', 'the schema is not JSON (it holds a cycle, a BigInt or a function)');
  }
  return text;
}

/** S3: tool arguments are an object, so the root may not declare another type. */
function checkRoot(schema: unknown, tool: string): CompiledJsonSchema {
  if (typeof schema !== 'boolean' && !isPlainObject(schema)) {
    throw schemaLoadFailed(tool, 'not_a_schema', '', 'an inputSchema must be a JSON object');
  }
  const compiled = compileJsonSchema(schema, { tool }); // a malformed "type" fails here first
  if (isPlainObject(schema) && schema.type !== undefined) {
    const types = Array.isArray(schema.type) ? schema.type : [schema.type];
    if (!types.includes('object')) {
      throw schemaLoadFailed(
        tool,
        'root_not_object',
        '/type',
        'tool arguments are a JSON object, so the root "type" must be "object" (or include it)',
        compiled.dialect,
      );
    }
  }
  return compiled;
}

function toToolSchema(inner: CompiledJsonSchema, hash: string): CompiledToolSchema {
  return Object.freeze({
    dialect: inner.dialect,
    hash,
    validate(args: unknown, options?: ValidateOptions): ValidationResult {
      if (!isPlainObject(args)) return NOT_AN_OBJECT;
      return inner.validate(args, options);
    },
  });
}
