// Runs examples/schema-validation.ts as a user would and checks what it prints.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const here = path.dirname(fileURLToPath(import.meta.url));

it('S8: the schema-validation example loads 41 real schemas and prints issues without argument values', () => {
  const out = execFileSync(process.execPath, ['--import', 'tsx', path.join(here, 'schema-validation.ts')], {
    encoding: 'utf8',
    cwd: path.join(here, '..'),
  });
  expect(out).toMatch(/Loaded 41 real tool schemas/);
  expect(out).toMatch(/\/apiKey: is not an allowed property/);
  expect(out).not.toMatch(/sk-live-123|secret draft text/);
  expect(out).toMatch(/schema_load_failed \(external_ref\)/);
});
