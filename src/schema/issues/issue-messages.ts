/**
 * What an argument issue says (S8): each message is built from the keyword
 * and the *schema's* values, never from the arguments (a validator's own text
 * echoes instance values and keys).
 */

/** The message of a missing property (`trigger`: the property whose presence requires it, for dependentRequired). */
export function missingMessage(property: string | undefined, trigger: string | undefined): string {
  if (property === undefined) return 'a required property is missing';
  if (trigger === undefined) return `must have required property ${JSON.stringify(property)}`;
  return `must have property ${JSON.stringify(property)} when property ${JSON.stringify(trigger)} is present`;
}

/** The message of a value where the schema is `false`, by the keyword that holds the false schema. */
export function falseMessage(schemaTokens: readonly string[]): string {
  const parent = schemaTokens[schemaTokens.length - 1];
  if (parent === 'additionalProperties' || parent === 'unevaluatedProperties') return 'is not an allowed property';
  if (parent === 'items' || parent === 'additionalItems' || parent === 'unevaluatedItems') return 'no item is allowed at this position';
  return 'no value is allowed here';
}

// How much of a schema's value a message quotes: presentation (a message stays one readable line), not a bound on input.
const MAX_LITERAL = 120;

function literal(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > MAX_LITERAL ? `${text.slice(0, MAX_LITERAL)}…` : text;
}

// The schema-built message of each keyword (`v`: the keyword's value in the schema, shown as a bounded literal).
const MESSAGES: Readonly<Record<string, (v: unknown, node: Record<string, unknown>) => string>> = {
  type: (v) => `must be ${Array.isArray(v) ? v.join(' or ') : String(v)}`,
  const: (v) => `must be exactly ${literal(v)}`,
  enum: (v) => `must be one of ${literal(v)}`,
  not: () => 'must not match the schema in "not"',
  anyOf: () => 'must match at least one of the schemas in "anyOf"',
  oneOf: () => 'must match exactly one of the schemas in "oneOf"',
  minProperties: (v) => `must have at least ${literal(v)} properties`,
  maxProperties: (v) => `must have at most ${literal(v)} properties`,
  contains: () => 'must contain at least one item that matches "contains"',
  minContains: (v) => `must contain at least ${literal(v)} items that match "contains"`,
  maxContains: (v) => `must contain at most ${literal(v)} items that match "contains"`,
  minItems: (v) => `must have at least ${literal(v)} items`,
  maxItems: (v) => `must have at most ${literal(v)} items`,
  uniqueItems: () => 'must not contain duplicate items',
  minimum: (v, node) => `must be ${node.exclusiveMinimum === true ? '>' : '>='} ${literal(v)}`,
  maximum: (v, node) => `must be ${node.exclusiveMaximum === true ? '<' : '<='} ${literal(v)}`,
  exclusiveMinimum: (v) => `must be > ${literal(v)}`,
  exclusiveMaximum: (v) => `must be < ${literal(v)}`,
  multipleOf: (v) => `must be a multiple of ${literal(v)}`,
  minLength: (v) => `must be at least ${literal(v)} characters long`,
  maxLength: (v) => `must be at most ${literal(v)} characters long`,
  pattern: (v) => `must match the pattern ${literal(v)}`,
};

/** The message of `keyword` failing, built from the schema's values only (never the instance's). */
export function messageFor(keyword: string, node: Record<string, unknown>): string {
  const message = Object.hasOwn(MESSAGES, keyword) ? MESSAGES[keyword] : undefined;
  return message === undefined ? `does not satisfy "${keyword}"` : message(node[keyword], node);
}
