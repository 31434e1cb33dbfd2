/**
 * Resource references: `category/name`. They feed tool aliases later, so the
 * alphabet is small and safe: lower-case letters, digits, `-`, `_`, `.`, one
 * `/`; each part starts with a letter or digit (so no `.` or `..` parts) and is
 * at most 64 characters. There is no bare-name shorthand: a reference always
 * says its category.
 */
import { MAX_NAME_LENGTH } from '../bounds.js';
import { AgtError } from '../errors.js';

const PART = `[a-z0-9][a-z0-9._-]{0,${MAX_NAME_LENGTH - 1}}`;
/** The grammar of a reference, for schemas that describe one. */
export const REFERENCE_PATTERN = new RegExp(`^${PART}/${PART}$`);
const REFERENCE = new RegExp(`^(${PART})/(${PART})$`);

/** The two parts of a reference. */
export interface ParsedReference {
  category: string;
  name: string;
}

/** True when `value` is a well-formed `category/name` reference. */
export function isReference(value: unknown): value is string {
  return typeof value === 'string' && REFERENCE.test(value);
}

/** Parses a reference or throws `invalid_input` saying what a valid one looks like. */
export function parseReference(value: unknown, what = 'reference'): ParsedReference {
  if (typeof value === 'string') {
    const match = REFERENCE.exec(value);
    if (match) return { category: match[1] as string, name: match[2] as string };
  }
  const shown = typeof value === 'string' && value.length <= 140 ? `"${value}"` : `a ${typeof value}`;
  throw new AgtError(
    'invalid_input',
    `${what} ${shown} is not valid: use "category/name" with lower-case letters, digits, "-", "_" or "." (each part starting with a letter or digit, at most ${MAX_NAME_LENGTH} characters), e.g. "tools/search"`,
    { details: { field: what } },
  );
}

/** Checks that a category filter is a valid reference part. */
export function checkCategory(value: unknown): string {
  if (typeof value === 'string' && new RegExp(`^${PART}$`).test(value)) return value;
  throw new AgtError('invalid_input', 'category must be lower-case letters, digits, "-", "_" or ".", starting with a letter or digit');
}
