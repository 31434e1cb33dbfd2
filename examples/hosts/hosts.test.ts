// Runs the provider hosts of examples/hosts as a user would (no network: scripted clients and the AI SDK's mock model).
import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const here = path.dirname(fileURLToPath(import.meta.url));
const host = (file: string) =>
  new Promise<string>((resolve, reject) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', path.join(here, file)],
      { cwd: path.join(here, '../..'), timeout: 60_000 },
      (error, stdout, stderr) => (error ? reject(new Error(stderr)) : resolve(stdout)),
    );
  });

describe('provider hosts (B3, B4, G4)', () => {
  it('B3: OpenAI host: a tool call through the pipeline, then the answer', async () => {
    expect(await host('openai-host.ts')).toBe('openai: completed in 2 steps: 2 + 3 = 5\n');
  });
  it('B4: Anthropic host: an invalid call is corrected by the model within its step budget', async () => {
    expect(await host('anthropic-host.ts')).toBe('anthropic: completed in 3 steps (invalid_arguments, ok): 2 + 3 = 5\n');
  });
  it("G4: AI SDK host: generateText with the run's tools, auto-allowed by annotation on a trusted mount", async () => {
    expect(await host('ai-sdk-host.ts')).toBe('ai-sdk: 2 steps: 2 + 3 = 5\n');
  });
});
