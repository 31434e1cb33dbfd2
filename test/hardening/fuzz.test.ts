/**
 * Fuzzing (fast-check): no input makes ResourceService.write or
 * NativeRun.executeBatch throw anything but an AgtError, and no input
 * pollutes Object.prototype (R2, A2, B3, B6).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isAgtError, MemoryStore, policies, ResourceService } from '../../src/index.js';
import { py, runFixture } from '../support/index.js';

const FUZZ_RUNS = { write: 10_000, batch: 2000 };
const protoKeys = fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty');
const key = fc.oneof(
  fc.string({ maxLength: 8 }),
  protoKeys,
  fc.constantFrom(
    'mcpServers',
    'command',
    'cwd',
    'args',
    'env',
    'url',
    'headers',
    'mcps',
    'skills',
    'settings',
    'role',
    'kind',
    'description',
    'allowMcp',
  ),
);
const value = fc.letrec((tie) => ({
  any: fc.oneof(
    { depthSize: 'small' },
    fc.jsonValue({ maxDepth: 2 }),
    fc.constant(undefined),
    fc.bigInt(),
    fc.constant(() => 1),
    tie('object'),
    fc.array(tie('any'), { maxLength: 3 }),
  ),
  object: fc.dictionary(key, tie('any'), { maxKeys: 4 }),
})).any;
const reference = fc.oneof(fc.constantFrom('a/b', 'tools/py', 'team/x', 'A/B', '../x', 'a/', '', 'a/b/c'), fc.string({ maxLength: 12 }));
const mcpDoc = fc.record(
  {
    mcpServers: fc.dictionary(
      fc.oneof(fc.constantFrom('s', '__proto__'), fc.string({ maxLength: 6 })),
      fc.oneof(
        value,
        fc.record(
          { command: fc.oneof(fc.string(), fc.constant('node')), cwd: fc.oneof(fc.constant('/srv'), fc.string()), args: value, env: value },
          { requiredKeys: [] },
        ),
      ),
      { maxKeys: 2 },
    ),
  },
  { requiredKeys: [] },
);
const writeInput = fc.record(
  {
    kind: fc.oneof(fc.constantFrom('mcp', 'agent', 'skill'), value),
    reference,
    create: fc.oneof(fc.boolean(), value),
    data: fc.oneof(
      value,
      mcpDoc,
      fc.record({ mcps: fc.array(reference, { maxLength: 3 }), role: fc.constantFrom('manager', 'worker', 'x') }, { requiredKeys: [] }),
    ),
    add: fc.oneof(fc.constant(undefined), fc.record({ mcps: fc.array(reference, { maxLength: 2 }) }), value),
    remove: fc.oneof(fc.constant(undefined), fc.record({ mcps: fc.array(reference, { maxLength: 2 }) }), value),
    expectedRevision: fc.oneof(fc.constant(undefined), fc.integer({ min: -2, max: 5 }), value),
  },
  { requiredKeys: [] },
);

function onlyAgtErrors(error: unknown): void {
  if (!isAgtError(error)) throw new Error(`a non-AgtError escaped: ${String((error as Error)?.stack ?? error)}`);
}

describe('fuzz', () => {
  it(`R2/A2: ${FUZZ_RUNS.write} random ResourceService.write inputs throw only AgtError and never pollute Object.prototype`, async () => {
    const service = new ResourceService({ store: new MemoryStore() });
    await fc.assert(
      fc.asyncProperty(fc.oneof(writeInput, value), async (input) => {
        await service.write(input as never).catch(onlyAgtErrors);
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      }),
      { numRuns: FUZZ_RUNS.write },
    );
  }, 120_000);

  const fx = runFixture();
  it(`B3/B6: ${FUZZ_RUNS.batch} random batches (known and unknown tools, hostile arguments) resolve or throw only AgtError`, async () => {
    const run = await fx.start(
      { policy: policies.autoAllow('*'), delegates: [{ name: 'hand_off', targets: ['team/b'], handler: async () => 'done' }] },
      { role: 'manager' },
    );
    const names = fc.oneof(
      { weight: 8, arbitrary: fc.constantFrom(...run.tools().map((t) => t.name), py('echo')) },
      { weight: 1, arbitrary: fc.constantFrom('nope', '') },
      { weight: 1, arbitrary: value },
    );
    const args = fc.oneof(
      value,
      fc.string({ maxLength: 20 }),
      fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
      fc.integer({ min: 1, max: 3000 }).map((n) => `${'['.repeat(n)}${']'.repeat(n)}`),
    );
    const call = fc.record(
      {
        callId: fc.oneof(
          { weight: 4, arbitrary: fc.uuid() },
          { weight: 1, arbitrary: fc.constantFrom('c1', '') },
          { weight: 1, arbitrary: value },
        ),
        name: names,
        arguments: args,
      },
      { requiredKeys: ['callId', 'name'] },
    );
    let n = 0;
    let ran = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(call, { maxLength: 4 }),
        fc.oneof({ weight: 4, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: value }),
        async (calls, junk) => {
          const batch = junk === undefined ? { runId: run.id, agent: run.agent, batchId: `f${n++}`, calls } : junk;
          const result = await run.executeBatch(batch as never).catch(onlyAgtErrors);
          if (result) ran += result.results.length;
        },
      ),
      { numRuns: FUZZ_RUNS.batch },
    );
    expect(ran).toBeGreaterThan(FUZZ_RUNS.batch / 10); // the pipeline itself was exercised, not only stage 1
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  }, 180_000);
});
