/**
 * S8 over the official JSON-Schema-Test-Suite (2020-12): for every instance
 * the suite says is invalid, no string of the instance (value or key) that the
 * schema itself does not contain appears in any issue message; and once made
 * safe for server data (serverSafeIssues: output schemas), in no instancePath
 * either. Issue keywords are JSON Schema keywords ("false" only for a false
 * root schema, which has none).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { declaredNames, serverSafeIssues } from '../../../src/schema/issues/issues.js';
import { ToolSchemaRegistry } from '../../../src/index.js';
import { SUITE_ROOT } from '../conformance-suite.js';

interface SuiteGroup {
  description: string;
  schema: unknown;
  tests: { description: string; data: unknown; valid: boolean }[];
}

// Every string of a value, keys included (bounded: the suite's instances are small).
function stringsOf(value: unknown, out: Set<string> = new Set(), depth = 0): Set<string> {
  if (depth > 32) return out;
  if (typeof value === 'string') out.add(value);
  else if (Array.isArray(value)) for (const item of value) stringsOf(item, out, depth + 1);
  else if (typeof value === 'object' && value !== null)
    for (const [key, item] of Object.entries(value)) {
      out.add(key);
      stringsOf(item, out, depth + 1);
    }
  return out;
}

const dir = path.join(SUITE_ROOT, 'tests', 'draft2020-12');
const files = fs.readdirSync(dir).filter((f) => f.endsWith('.json'));
const registry = new ToolSchemaRegistry();
let total = 0; // issues checked by the file tests, which run in order before the last test

describe('S8: issues never echo the instance (JSON-Schema-Test-Suite, 2020-12)', () => {
  it.each(files)('%s', (file) => {
    const groups = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) as SuiteGroup[];
    let checked = 0;
    for (const group of groups) {
      let compiled;
      try {
        compiled = registry.compile(group.schema, { tool: 'suite' });
      } catch {
        continue; // schemas the registry refuses (remote references, unsafe patterns) have no issues to check
      }
      const inSchema = JSON.stringify(group.schema);
      for (const test of group.tests.filter((t) => !t.valid)) {
        const result = compiled.validate(test.data);
        if (result.ok) continue; // a known gap is the conformance report's business (docs/conformance.md)
        const own = [...stringsOf(test.data)].filter((s) => s.length >= 2 && !inSchema.includes(JSON.stringify(s).slice(1, -1)));
        const safe = serverSafeIssues(result.issues, declaredNames(group.schema));
        for (const [i, issue] of result.issues.entries()) {
          checked += 1;
          if (issue.schemaPath !== '') expect(issue.keyword, `${group.description} / ${test.description}`).not.toBe('false'); // only a false root has no keyword
          for (const s of own) {
            expect(issue.message, `${group.description} / ${test.description}`).not.toContain(s);
            expect(safe[i]?.instancePath.split('/'), `${group.description} / ${test.description}`).not.toContain(s);
          }
        }
      }
    }
    total += checked;
  });

  it('the files above checked several hundred issues (the property is not vacuous)', () => {
    expect(total).toBeGreaterThan(300);
  });
});
