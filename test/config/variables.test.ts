/** A run resolves its mounts' placeholders at connect, from the run's variables (B1, R4). */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryStore, NativeRun, policies, ResourceService, toolAlias } from '../../src/index.js';
import { parseJsonc, planImport } from '../../src/config.js';
import { failure, FIXTURES, REPO_ROOT } from '../support/index.js';

let run: NativeRun | undefined;
afterEach(async () => {
  await run?.close();
  run = undefined;
});

async function registryWithVsCodeServer(): Promise<ResourceService> {
  const service = new ResourceService({ store: new MemoryStore() });
  const file = parseJsonc(fs.readFileSync(path.join(FIXTURES, 'hosts/vscode/.vscode/mcp.json'), 'utf8'));
  const entry = planImport(file, { cwd: REPO_ROOT }).entries.find((e) => e.name === 'fixture');
  await service.write({ kind: 'mcp', reference: 'imported/fixture', create: true, data: entry?.document });
  await service.write({ kind: 'agent', reference: 'team/alice', create: true, data: { mcps: ['imported/fixture'] } });
  return service;
}

describe('variables in runs', () => {
  it("B1/R4: a run connects its mounts with the run's variables; the stored config keeps its placeholders", async () => {
    const service = await registryWithVsCodeServer();
    run = await NativeRun.start({
      agent: 'team/alice',
      service,
      policy: policies.autoAllow('*'),
      variables: { inputs: { 'fixture-name': 'run-fixture', 'fixture-key': 'run-secret' } },
    });
    const alias = toolAlias('imported/fixture', 'whereami');
    const { results } = await run.executeBatch({
      runId: run.id,
      agent: run.agent,
      batchId: 'b1',
      calls: [{ callId: 'c1', name: alias, arguments: { var: 'FIXTURE_API_KEY' } }],
    });
    expect(results[0]?.status).toBe('ok');
    const seen = JSON.parse((results[0] as { content: { text: string }[] }).content[0]?.text ?? '{}') as {
      var_sha256: string;
      argv: string[];
    };
    expect(seen.var_sha256).toBe(createHash('sha256').update('run-secret').digest('hex'));
    expect(seen.argv).toEqual(['--name', '***']); // a resolved input value the server repeats is masked
    const stored = await service.read({ kind: 'mcp', reference: 'imported/fixture' });
    expect(JSON.stringify(stored.data)).toContain('${input:fixture-key}');
  });

  it('B1/R4: a run whose mount has a placeholder without a value does not start, naming it', async () => {
    const service = await registryWithVsCodeServer();
    const f = await failure(
      NativeRun.start({ agent: 'team/alice', service, policy: policies.autoAllow('*'), variables: { inputs: { 'fixture-name': 'n' } } }),
    );
    expect(f.code).toBe('invalid_config');
    expect(f.message).toMatch(/\$\{input:fixture-key\} has no value/);
  });
});
