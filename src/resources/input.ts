/** Checks of the raw inputs the resource service receives from tools, the CLI and hosts. */
import { AgtError } from '../errors.js';
import { isPlainObject, jsonProblem } from '../json.js';
import { parseReference } from './reference.js';
import { rejectRemovedOptions } from '../config/removed-options.js';
import { RESOURCE_KINDS, type ResourceKind } from './types.js';
import { MAX_JSON_DEPTH } from '../bounds.js';

/** The default size limit of a resource's data, as JSON (256 KiB). */
export { DEFAULT_MAX_DOCUMENT_BYTES } from '../bounds.js';

/** Checks that `input` is an object with only `allowed` keys (A7 first). */
export function checkKeys(input: unknown, allowed: readonly string[], where: string): Record<string, unknown> {
  if (!isPlainObject(input)) throw new AgtError('invalid_input', `${where}: the input must be an object`);
  rejectRemovedOptions(input, where);
  for (const key of Object.keys(input)) {
    if (allowed.includes(key)) continue;
    const hint = /^expected.?revision$/i.test(key) ? ' (did you mean "expectedRevision"?)' : '';
    throw new AgtError('invalid_input', `${where}: unknown field "${key}"${hint}; allowed: ${allowed.join(', ')}`, {
      details: { field: key },
    });
  }
  return input;
}

/** Checks a resource kind. */
export function checkKind(value: unknown): ResourceKind {
  if (typeof value === 'string' && (RESOURCE_KINDS as readonly string[]).includes(value)) return value as ResourceKind;
  throw new AgtError('invalid_input', `kind must be one of ${RESOURCE_KINDS.map((k) => `"${k}"`).join(', ')}`, {
    details: { field: 'kind' },
  });
}

/** Checks a kind and reference pair. */
export function checkTarget(input: Record<string, unknown>): { kind: ResourceKind; reference: string } {
  const kind = checkKind(input.kind);
  parseReference(input.reference);
  return { kind, reference: input.reference as string };
}

/** Checks an optional expected revision. */
export function checkRevision(value: unknown, field = 'expectedRevision'): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'number' && Number.isInteger(value) && value >= 1) return value;
  throw new AgtError('invalid_input', `${field} must be a positive integer (the revision you read)`, { details: { field } });
}

/** How deep a resource's data may nest (configs, agents and skills are shallow). */

/** Checks that data is JSON within the depth limit and, as JSON, the size limit (before anything recurses on it). */
export function checkSize(data: unknown, limit: number): void {
  const problem = jsonProblem(data, { depth: MAX_JSON_DEPTH, bytes: limit * 2 + 1024 });
  if (problem === 'too_deep')
    throw new AgtError('invalid_input', `data nests deeper than ${MAX_JSON_DEPTH} levels`, {
      details: { field: 'data', reason: 'too_deep', limit: MAX_JSON_DEPTH },
    });
  if (problem === 'cyclic' || problem === 'not_json')
    throw new AgtError('invalid_input', 'data must be JSON (no cycles, BigInts or functions)', {
      details: { field: 'data', reason: problem },
    });
  let size: number;
  try {
    size = Buffer.byteLength(JSON.stringify(data) ?? '');
  } catch {
    throw new AgtError('invalid_input', 'data must be JSON (no cycles, BigInts or functions)', { details: { field: 'data' } });
  }
  if (size > limit) {
    throw new AgtError('invalid_input', `data is ${size} bytes as JSON; the limit is ${limit} bytes`, {
      details: { field: 'data', size, limit },
    });
  }
}
