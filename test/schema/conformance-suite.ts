/**
 * Runs the official JSON-Schema-Test-Suite (required tests, no `optional/`)
 * through the registry's load pipeline and through raw cfworker, side by side.
 *
 * Remote documents (`remotes/`, served by the suite at http://localhost:1234/)
 * and the metaschemas are preloaded in memory, and only for test groups whose
 * schema cannot load without them: tool schemas never get them (S5).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Validator } from '@cfworker/json-schema';
import { compileJsonSchema } from '../../src/schema/compile/compile.js';
import type { Dialect } from '../../src/schema/compile/dialects.js';
import { metaschemaDocuments } from '../../src/schema/compile/metaschemas.js';
import { isAgtError } from '../../src/errors.js';

const here = path.dirname(fileURLToPath(import.meta.url));
/** Where the suite lives (vendored under test/fixtures). */
export const SUITE_ROOT = path.resolve(here, '../fixtures/json-schema-test-suite');

export const SUITE_DIALECTS: { dir: string; dialect: Dialect; cf: '4' | '7' | '2019-09' | '2020-12' }[] = [
  { dir: 'draft4', dialect: 'draft-04', cf: '4' },
  { dir: 'draft7', dialect: 'draft-07', cf: '7' },
  { dir: 'draft2019-09', dialect: '2019-09', cf: '2019-09' },
  { dir: 'draft2020-12', dialect: '2020-12', cf: '2020-12' },
];

interface SuiteGroup {
  description: string;
  schema: unknown;
  tests: { description: string; data: unknown; valid: boolean }[];
}

/** How one test case went. */
export interface CaseOutcome {
  id: string;
  /** pass/fail on a verdict; rejected = the schema failed to load. */
  registry: 'pass' | 'fail' | 'rejected';
  /** The load failure reason when rejected. */
  reason?: string;
  raw: boolean;
}

export interface DialectOutcome {
  dir: string;
  cases: CaseOutcome[];
}

/** Counts of a dialect's outcome. */
export function summarise(outcome: DialectOutcome): {
  total: number;
  registryPassed: number;
  rawPassed: number;
  rejected: number;
  registryPassedWhereLoaded: number;
  rawPassedWhereLoaded: number;
} {
  const loaded = outcome.cases.filter((c) => c.registry !== 'rejected');
  return {
    total: outcome.cases.length,
    registryPassed: outcome.cases.filter((c) => c.registry === 'pass').length,
    rawPassed: outcome.cases.filter((c) => c.raw).length,
    rejected: outcome.cases.length - loaded.length,
    registryPassedWhereLoaded: loaded.filter((c) => c.registry === 'pass').length,
    rawPassedWhereLoaded: loaded.filter((c) => c.raw).length,
  };
}

function walk(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)]));
}

let remotes: Record<string, unknown> | undefined;
function offlineDocuments(): Record<string, unknown> {
  if (remotes === undefined) {
    remotes = {};
    const base = path.join(SUITE_ROOT, 'remotes');
    for (const file of walk(base).filter((f) => f.endsWith('.json'))) {
      remotes[`http://localhost:1234/${path.relative(base, file).split(path.sep).join('/')}`] = JSON.parse(fs.readFileSync(file, 'utf8'));
    }
    for (const d of SUITE_DIALECTS) {
      for (const doc of metaschemaDocuments(d.dialect)) {
        const id = String((doc as { $id?: string; id?: string }).$id ?? (doc as { id?: string }).id).replace(/#$/, '');
        remotes[id] = doc;
      }
    }
  }
  return remotes;
}

/** A stable id for one test case. */
export function caseId(file: string, group: string, test: string): string {
  return `${file} :: ${group} :: ${test}`;
}

/** Runs every required test of one dialect through both validators. */
export function runDialect(entry: (typeof SUITE_DIALECTS)[number]): DialectOutcome {
  const dir = path.join(SUITE_ROOT, 'tests', entry.dir);
  const outcome: DialectOutcome = { dir: entry.dir, cases: [] };
  for (const file of fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()) {
    const groups = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) as SuiteGroup[];
    for (const group of groups) {
      const withDollarSchema = addDialect(group.schema, entry.dialect);
      let compiled: ReturnType<typeof compileJsonSchema> | undefined;
      let loadError = '';
      try {
        compiled = compileJsonSchema(withDollarSchema, { tool: 'suite' });
      } catch (error) {
        const reason = isAgtError(error) ? String(error.details?.reason) : 'crash';
        if (reason === 'external_ref') {
          try {
            compiled = compileJsonSchema(withDollarSchema, { tool: 'suite', documents: offlineDocuments() });
          } catch (again) {
            loadError = isAgtError(again) ? `load: ${String(again.details?.reason)}` : 'load: crash';
          }
        } else {
          loadError = `load: ${reason}`;
        }
      }
      const raw = rawValidator(group.schema, entry.cf);
      for (const test of group.tests) {
        const id = caseId(file, group.description, test.description);
        let rawOk = false;
        try {
          rawOk = raw !== undefined && raw.validate(test.data).valid === test.valid;
        } catch {
          // raw cfworker throws on unresolved refs and bad regexes: a failure
        }
        if (compiled === undefined) {
          outcome.cases.push({ id, registry: 'rejected', reason: loadError, raw: rawOk });
        } else {
          const verdict = compiled.validate(test.data).ok === test.valid ? 'pass' : 'fail';
          outcome.cases.push({ id, registry: verdict, raw: rawOk });
        }
      }
    }
  }
  return outcome;
}

// The suite's schemas rely on the runner choosing the dialect; the registry
// reads it from `$schema` (S1), so name it where the schema does not.
function addDialect(schema: unknown, dialect: Dialect): unknown {
  if (typeof schema !== 'object' || schema === null || '$schema' in schema) return schema;
  const uri = {
    'draft-04': 'http://json-schema.org/draft-04/schema#',
    'draft-07': 'http://json-schema.org/draft-07/schema#',
    '2019-09': 'https://json-schema.org/draft/2019-09/schema',
    '2020-12': 'https://json-schema.org/draft/2020-12/schema',
  }[dialect];
  return { $schema: uri, ...schema };
}

function rawValidator(schema: unknown, draft: '4' | '7' | '2019-09' | '2020-12'): Validator | undefined {
  try {
    const validator = new Validator(structuredClone(schema) as object, draft);
    for (const [uri, doc] of Object.entries(offlineDocuments())) validator.addSchema(structuredClone(doc) as object, uri);
    return validator;
  } catch {
    return undefined;
  }
}
