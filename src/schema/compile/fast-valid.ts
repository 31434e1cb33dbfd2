/**
 * A quick "certainly valid" for the common shape of tool arguments: an object
 * of scalar properties (`type`, `enum`, `const`, lengths, bounds), `required`
 * and `additionalProperties`. Built once per schema when every keyword of it
 * is in that small set; anything else gets no quick check. It answers true
 * only when the instance is valid for certain (lengths in code points, as
 * JSON Schema counts them; `integer` as the validator reads it), and
 * undefined otherwise — the full validator (cfworker) then decides and names
 * the issues, so a quick check can never accept what the validator refuses.
 */
import { isPlainObject } from '../../json.js';

/** True when an instance is certainly valid; undefined when the full validator must decide. */
export type QuickCheck = (instance: unknown) => true | undefined;

const ANNOTATIONS = new Set(['title', 'description', 'default', 'examples', '$comment', 'deprecated', 'readOnly', 'writeOnly']);
const ROOT_KEYS = new Set([...ANNOTATIONS, '$schema', 'type', 'properties', 'required', 'additionalProperties']);
const PROPERTY_KEYS = new Set([...ANNOTATIONS, 'type', 'enum', 'const', 'minLength', 'maxLength', 'minimum', 'maximum']);
const SCALAR_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'null']);

type Scalar = string | number | boolean | null;
const isScalar = (v: unknown): v is Scalar => v === null || ['string', 'number', 'boolean'].includes(typeof v);
const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0;
const isFiniteNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

// The JSON Schema type of a JSON scalar, `integer` included where it holds (as cfworker reads it: a whole number).
function holdsType(value: Scalar, type: string): boolean {
  if (type === 'integer') return typeof value === 'number' && value % 1 === 0;
  if (type === 'null') return value === null;
  return typeof value === type;
}

// Code points of a string (a lone surrogate counts as one), as JSON Schema counts lengths.
function codePoints(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    n += 1;
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) i += 1;
  }
  return n;
}

// The check of one property's value, or undefined when the property's schema has anything else.
function propertyCheck(schema: unknown): ((value: unknown) => boolean) | undefined {
  if (!isPlainObject(schema) || !Object.keys(schema).every((k) => PROPERTY_KEYS.has(k))) return undefined;
  const { type, enum: choices, const: constant, minLength, maxLength, minimum, maximum } = schema;
  const types = type === undefined ? undefined : Array.isArray(type) ? type : [type];
  if (types !== undefined && (types.length === 0 || !types.every((t) => typeof t === 'string' && SCALAR_TYPES.has(t)))) return undefined;
  if (choices !== undefined && (!Array.isArray(choices) || !choices.every(isScalar))) return undefined;
  if (constant !== undefined && !isScalar(constant)) return undefined;
  if ((minLength !== undefined && !isCount(minLength)) || (maxLength !== undefined && !isCount(maxLength))) return undefined;
  if ((minimum !== undefined && !isFiniteNumber(minimum)) || (maximum !== undefined && !isFiniteNumber(maximum))) return undefined;
  return (value) => {
    if (!isScalar(value) || (typeof value === 'number' && !Number.isFinite(value))) return false;
    if (types !== undefined && !types.some((t) => holdsType(value, t as string))) return false;
    if (choices !== undefined && !choices.includes(value)) return false;
    if (constant !== undefined && value !== constant) return false;
    if (typeof value === 'string' && (minLength !== undefined || maxLength !== undefined)) {
      // UTF-16 units bound code points from above: most strings are settled without counting.
      if (maxLength !== undefined && value.length > maxLength && codePoints(value) > maxLength) return false;
      if (minLength !== undefined && (value.length < minLength || codePoints(value) < minLength)) return false;
    }
    if (typeof value === 'number' && ((minimum !== undefined && value < minimum) || (maximum !== undefined && value > maximum)))
      return false;
    return true;
  };
}

/**
 * The quick check of `schema`, or undefined when it has anything beyond the common shape. `isFalse` tells the
 * marker a prepared schema holds in place of the schema `false` (prepare.ts), which `additionalProperties` may be.
 */
export function quickCheck(schema: unknown, isFalse: (node: unknown) => boolean = () => false): QuickCheck | undefined {
  if (!isPlainObject(schema) || schema.type !== 'object' || !Object.keys(schema).every((k) => ROOT_KEYS.has(k))) return undefined;
  const { properties = {}, required = [] } = schema;
  const additionalProperties = isFalse(schema.additionalProperties) ? false : schema.additionalProperties;
  if (!isPlainObject(properties) || !Array.isArray(required) || !required.every((k) => typeof k === 'string')) return undefined;
  if (additionalProperties !== undefined && typeof additionalProperties !== 'boolean') return undefined;
  const checks = new Map<string, (value: unknown) => boolean>();
  for (const [name, property] of Object.entries(properties)) {
    const check = propertyCheck(property);
    if (check === undefined) return undefined;
    checks.set(name, check);
  }
  const open = additionalProperties !== false;
  return (instance) => {
    if (!isPlainObject(instance)) return undefined;
    for (const key of required as string[]) if (!Object.hasOwn(instance, key)) return undefined;
    for (const key of Object.keys(instance)) {
      const check = checks.get(key);
      if (check === undefined ? !open : !check(instance[key])) return undefined;
    }
    return true;
  };
}
