/**
 * Validates a schema against its dialect's official metaschema (S7).
 *
 * cfworker checks nothing about schemas (`{type: 5}` loads silently), so every
 * schema is first validated as an instance of its metaschema. The metaschemas
 * are the official ones, shipped inside the package and never fetched (S5). The
 * 2020-12 set relies on `$dynamicRef: "#meta"`, which cfworker ignores; our
 * private copy turns it into a `$ref` to the 2020-12 top schema, which gives the
 * same verdicts for schemas that do not extend the metaschema themselves.
 */
import { type OutputUnit, Validator } from '@cfworker/json-schema';
import { cfDraftOf, type Dialect, dialectLabel } from './dialects.js';
import { fragmentToPointer } from '../pointer.js';
import { prepareSchema } from './prepare.js';
import draft04 from './metaschemas/draft-04.json' with { type: 'json' };
import draft07 from './metaschemas/draft-07.json' with { type: 'json' };
import s2019 from './metaschemas/2019-09/schema.json' with { type: 'json' };
import s2019Applicator from './metaschemas/2019-09/meta/applicator.json' with { type: 'json' };
import s2019Content from './metaschemas/2019-09/meta/content.json' with { type: 'json' };
import s2019Core from './metaschemas/2019-09/meta/core.json' with { type: 'json' };
import s2019Format from './metaschemas/2019-09/meta/format.json' with { type: 'json' };
import s2019MetaData from './metaschemas/2019-09/meta/meta-data.json' with { type: 'json' };
import s2019Validation from './metaschemas/2019-09/meta/validation.json' with { type: 'json' };
import s2020 from './metaschemas/2020-12/schema.json' with { type: 'json' };
import s2020Applicator from './metaschemas/2020-12/meta/applicator.json' with { type: 'json' };
import s2020Content from './metaschemas/2020-12/meta/content.json' with { type: 'json' };
import s2020Core from './metaschemas/2020-12/meta/core.json' with { type: 'json' };
import s2020Format from './metaschemas/2020-12/meta/format-annotation.json' with { type: 'json' };
import s2020MetaData from './metaschemas/2020-12/meta/meta-data.json' with { type: 'json' };
import s2020Unevaluated from './metaschemas/2020-12/meta/unevaluated.json' with { type: 'json' };
import s2020Validation from './metaschemas/2020-12/meta/validation.json' with { type: 'json' };

const TOP_2020 = 'https://json-schema.org/draft/2020-12/schema';

const DOCUMENTS: Record<Dialect, readonly unknown[]> = {
  'draft-04': [draft04],
  'draft-07': [draft07],
  '2019-09': [s2019, s2019Core, s2019Applicator, s2019Validation, s2019MetaData, s2019Format, s2019Content],
  '2020-12': [s2020, s2020Core, s2020Applicator, s2020Unevaluated, s2020Validation, s2020MetaData, s2020Format, s2020Content],
};

/** Private, patched copies of the official metaschemas of `dialect` (top schema first). */
export function metaschemaDocuments(dialect: Dialect): Record<string, unknown>[] {
  return DOCUMENTS[dialect].map((doc) => {
    const { copy } = prepareSchema(doc, {
      dialect,
      falseMarkers: new WeakSet(),
      ...(dialect === '2020-12' ? { dynamicRefTarget: TOP_2020 } : {}),
    });
    return copy as Record<string, unknown>;
  });
}

const validators = new Map<Dialect, Validator>();

function metaValidator(dialect: Dialect): Validator {
  let validator = validators.get(dialect);
  if (validator === undefined) {
    const [top, ...vocabularies] = metaschemaDocuments(dialect);
    validator = new Validator(top as object, cfDraftOf(dialect), true);
    for (const vocabulary of vocabularies) validator.addSchema(vocabulary as object);
    validators.set(dialect, validator);
  }
  return validator;
}

/** Why a schema is not valid under its metaschema, or undefined if it is. */
export interface MetaViolation {
  /** Where in the caller's schema (plain JSON Pointer). */
  pointer: string;
  message: string;
}

// Errors that only say "something below failed".
const WRAPPERS = new Set([
  '$ref',
  '$recursiveRef',
  'allOf',
  'properties',
  'additionalProperties',
  'patternProperties',
  'items',
  'prefixItems',
  'additionalItems',
  'propertyNames',
  'dependentSchemas',
  'if',
  'unevaluatedProperties',
  'unevaluatedItems',
]);

/** Validates `schema` against the metaschema of `dialect`. */
export function checkAgainstMetaschema(schema: unknown, dialect: Dialect): MetaViolation | undefined {
  let errors: OutputUnit[];
  try {
    const result = metaValidator(dialect).validate(schema);
    if (result.valid) return undefined;
    errors = result.errors;
  } catch {
    // Non-JSON values inside the schema (functions, BigInt, undefined in arrays).
    return { pointer: '', message: 'the schema contains a value that is not JSON' };
  }
  const culprit = deepest(errors);
  const pointer = fragmentToPointer(culprit.instanceLocation);
  const tokens = pointer.split('/');
  const what = pointer === '' ? 'the schema root' : `the value of "${tokens[tokens.length - 1]}"`;
  return {
    pointer,
    message: `${what} is not valid in a ${dialectLabel(dialect)} schema (the metaschema's "${culprit.keyword}" check fails)`,
  };
}

function deepest(errors: OutputUnit[]): OutputUnit {
  const real = errors.filter((e) => !WRAPPERS.has(e.keyword));
  const pool = real.length > 0 ? real : errors;
  let best = pool[0] as OutputUnit;
  for (const e of pool) if (e.instanceLocation.length > best.instanceLocation.length) best = e;
  return best;
}
