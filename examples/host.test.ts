// Runs examples/host.ts (the README's "Use it in your host") as a user would.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const here = path.dirname(fileURLToPath(import.meta.url));

it('B3: the 20-line host registers the shipped fixture server, runs one OpenAI-shaped step and prints the tool message', () => {
  const out = execFileSync(process.execPath, ['--import', 'tsx', path.join(here, 'host.ts')], {
    encoding: 'utf8',
    cwd: path.join(here, '..'),
  });
  expect(JSON.parse(out)).toEqual([{ role: 'tool', tool_call_id: 'call_1', content: '{"sum":5}' }]);
});
