import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runDialect, SUITE_DIALECTS, SUITE_ROOT, summarise } from './conformance-suite.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const expectedFailures = JSON.parse(fs.readFileSync(path.join(here, 'conformance-expected-failures.json'), 'utf8')) as Record<
  string,
  Record<string, string>
>;

describe('JSON-Schema-Test-Suite (S1, S2, S5, S6)', () => {
  it('the official suite is vendored under test/fixtures', () => {
    expect(fs.existsSync(path.join(SUITE_ROOT, 'tests', 'draft2020-12'))).toBe(true);
  });

  for (const entry of SUITE_DIALECTS) {
    describe(entry.dir, () => {
      const outcome = runDialect(entry);
      const listed = expectedFailures[entry.dir] ?? {};
      const failing = outcome.cases.filter((c) => c.registry !== 'pass').map((c) => c.id);

      it('S2: every failure is listed in the expected-failures file with its reason', () => {
        expect(failing.filter((id) => !(id in listed))).toEqual([]);
      });

      it('S2: every listed failure still fails (the list stays true)', () => {
        const stillFailing = new Set(failing);
        expect(Object.keys(listed).filter((id) => !stillFailing.has(id))).toEqual([]);
      });

      it('S2: the registry is never worse than raw cfworker on schemas it loads', () => {
        const s = summarise(outcome);
        expect(s.registryPassedWhereLoaded).toBeGreaterThanOrEqual(s.rawPassedWhereLoaded);
      });

      it('S1: the only rejected schemas use $dynamicRef or a custom $schema', () => {
        const reasons = new Set(outcome.cases.filter((c) => c.registry === 'rejected').map((c) => c.reason));
        for (const reason of reasons) expect(['load: unsupported_keyword', 'load: unknown_dialect']).toContain(reason);
      });
    });
  }

  it('S6: all of 2020-12 format.json passes (format is an annotation)', () => {
    const outcome = runDialect(SUITE_DIALECTS.find((d) => d.dir === 'draft2020-12')!);
    const format = outcome.cases.filter((c) => c.id.startsWith('format.json ::'));
    expect(format.length).toBeGreaterThan(100);
    expect(format.filter((c) => c.registry !== 'pass').map((c) => c.id)).toEqual([]);
  });
});
