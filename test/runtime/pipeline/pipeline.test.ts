import { describe, expect, it } from 'vitest';
import { AgtError, executeModelCalls, policies, RESULT_STATUSES, type PermissionRequest } from '../../../src/index.js';
import type { BatchRunner } from '../../../src/runtime/model-calls.js';
import { readArguments } from '../../../src/runtime/pipeline/arguments.js';
import { batchDeadlineReason, callResult } from '../../../src/runtime/pipeline/call-result.js';
import { DEFAULT_LIMITS } from '../../../src/runtime/limits.js';
import { type CallPath, NOT_COPIED, runCall } from '../../../src/runtime/pipeline/pipeline.js';
import type { ToolResult } from '../../../src/runtime/types.js';
import { ToolSchemaRegistry } from '../../../src/schema/registry.js';

// One pipeline (pipeline.ts): the stages in SPEC §7's order for every path, each
// path leaving out only the stages it does not have.
const registry = new ToolSchemaRegistry();
const route = {
  validator: registry.compile(
    { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'], additionalProperties: false },
    { tool: 't' },
  ),
  outputValidator: registry.compile(
    { type: 'object', properties: { sum: { type: 'integer' } }, required: ['sum'] },
    { tool: 't', part: 'outputSchema' },
  ),
};
type R = typeof route;
const read = (raw: unknown) => readArguments(raw, DEFAULT_LIMITS);

function tracedPath(stages: string[], overrides: Partial<CallPath<R>> = {}): CallPath<R> {
  return {
    signal: new AbortController().signal,
    policy: {
      review: async (request) => {
        stages.push(`permission:${JSON.stringify(request.arguments)}`);
        return { decision: 'allow', by: 'auto' };
      },
    },
    before: [() => void stages.push('before')],
    after: [
      (_request, result) => {
        stages.push(`after:${result.status}`);
      },
    ],
    request: (callId, _route, args) => {
      stages.push('request');
      return Object.freeze({ runId: 'r', agent: 'a', batchId: 'b', callId, tool: 't', kind: 'delegate', arguments: args });
    },
    execute: async (callId, _route, args) => {
      stages.push('execute');
      return callResult(callId, { kind: 'answer', answer: { content: [], structuredContent: { sum: (args.n as number) + 1 } } });
    },
    checksOutput: () => {
      stages.push('output');
      return true;
    },
    maxResultBytes: 1024,
    ...overrides,
  };
}

describe('one call pipeline', () => {
  it('B3: the stages run once each, in order: validate → permission → before → execute → output → bound → after', async () => {
    const stages: string[] = [];
    const out = await runCall('c1', route, read('{"n":1}'), tracedPath(stages));
    expect(out).toEqual({
      kind: 'ended',
      result: { callId: 'c1', status: 'ok', content: [], structuredContent: { sum: 2 } },
      decidedBy: 'auto',
    });
    expect(stages).toEqual(['request', 'permission:{"n":1}', 'before', 'execute', 'output', 'after:ok']);
  });

  it('B4: invalid arguments never reach the policy, the hooks or the executor', async () => {
    const stages: string[] = [];
    const out = await runCall('c1', route, read({ n: 'one' }), tracedPath(stages));
    expect(out).toMatchObject({ result: { callId: 'c1', status: 'invalid_arguments', error: { code: 'invalid_arguments' } } });
    expect(stages).toEqual([]);
  });

  it('B3: a path without a policy or hooks builds no permission request; a decided one keeps its decider', async () => {
    const stages: string[] = [];
    const out = await runCall(
      'c1',
      route,
      read({ n: 2 }),
      tracedPath(stages, { policy: undefined, before: [], after: [], decidedBy: 'human' }),
    );
    expect(out).toMatchObject({ result: { status: 'ok', structuredContent: { sum: 3 } }, decidedBy: 'human' });
    expect(stages).toEqual(['execute', 'output']);
  });

  it('B3: a structured result that breaks the outputSchema fails the call as output_invalid, after hooks see that', async () => {
    const stages: string[] = [];
    const out = await runCall(
      'c1',
      route,
      read({ n: 1 }),
      tracedPath(stages, {
        execute: async (callId) => callResult(callId, { kind: 'answer', answer: { content: [], structuredContent: { sum: 'x' } } }),
      }),
    );
    expect(out).toMatchObject({ result: { status: 'tool_failed', error: { code: 'output_invalid' } } });
    expect(stages.at(-1)).toBe('after:tool_failed');
  });

  it('G4: a policy or hook sees a frozen copy of the arguments, equal to what the backend gets', async () => {
    const { permissionRequest } = await import('../../../src/runtime/pipeline/call.js');
    const args = { n: 1, nested: { list: [1, 2] } };
    const ctx = { runId: 'r', agent: 'a', batchId: 'b' } as Parameters<typeof permissionRequest>[0];
    const request: PermissionRequest = permissionRequest(ctx, 'c1', { kind: 'delegate', name: 't' } as never, args);
    expect(Object.isFrozen(request)).toBe(true);
    expect(request.arguments).toEqual(args);
    expect(request.arguments).not.toBe(args);
    expect(Object.isFrozen(request.arguments) && Object.isFrozen(request.arguments.nested)).toBe(true);
  });

  it('G4: a built-in matching policy with no hooks gets no copy of the arguments; a predicate, a hook or a deferral does', async () => {
    const copies: boolean[] = [];
    const path = (policy: CallPath<R>['policy'], hooks = false): CallPath<R> =>
      tracedPath([], {
        policy,
        before: hooks ? [() => undefined] : [],
        after: [],
        request: (callId, _route, args, withArguments) => {
          copies.push(withArguments);
          const seen = withArguments ? args : NOT_COPIED;
          return Object.freeze({ runId: 'r', agent: 'a', batchId: 'b', callId, tool: 't', kind: 'delegate', arguments: seen });
        },
      });
    const ok = (policy: CallPath<R>['policy'], hooks = false) => runCall('c', route, read({ n: 1 }), path(policy, hooks));
    await expect(ok(policies.autoAllow('*'))).resolves.toMatchObject({ result: { status: 'ok' }, decidedBy: 'auto' });
    await expect(ok(policies.chain(policies.deny({ destructive: true }), policies.autoAllow(/t/)))).resolves.toMatchObject({
      result: { status: 'ok' },
    });
    expect(copies.splice(0)).toEqual([false, false]);
    await ok(policies.autoAllow((r) => r.arguments.n === 1));
    await ok(policies.autoAllow('*'), true);
    expect(copies.splice(0)).toEqual([true, true]);
    const deferred = await ok(policies.approval('*'));
    expect('deferred' in deferred && deferred.request.arguments).toEqual({ n: 1 }); // kept for the approver
    expect(copies).toEqual([false, true]);
  });
});

describe('one result builder', () => {
  it('B5: every way a call ends maps to one of RESULT_STATUSES', () => {
    const aborted = new AbortController();
    aborted.abort();
    const ends = [
      callResult('c', { kind: 'answer', answer: { content: [{ type: 'text', text: 'ok' }] } }),
      callResult('c', { kind: 'answer', answer: { content: [{ type: 'text', text: 'no' }], isError: true } }),
      callResult('c', { kind: 'output', output: 'text' }),
      callResult('c', { kind: 'output', output: { a: 1 } }),
      callResult('c', { kind: 'failed', failed: 'permission_denied', error: { code: 'permission_denied', message: 'no' } }),
      callResult('c', { kind: 'thrown', thrown: new AgtError('not_found', 'gone'), fallback: 'failed' }),
      callResult('c', { kind: 'thrown', thrown: new Error('secret stack'), fallback: 'the tool failed' }),
      callResult('c', { kind: 'aborted', aborted: aborted.signal }),
      callResult('c', { kind: 'callError', callError: new AgtError('connection_closed', 'x'), mount: 'tools/a', timeoutMs: 10 }),
    ];
    for (const end of ends) expect(RESULT_STATUSES).toContain(end.status);
    expect(ends.map((r) => [r.status, r.status === 'ok' ? '' : r.error.code])).toEqual([
      ['ok', ''],
      ['tool_error', 'tool_error'],
      ['ok', ''],
      ['ok', ''],
      ['permission_denied', 'permission_denied'],
      ['tool_error', 'not_found'],
      ['tool_failed', 'tool_failed'],
      ['tool_failed', 'cancelled'],
      ['tool_failed', 'connection_closed'],
    ]);
    expect(JSON.stringify(ends)).not.toContain('secret stack');
  });

  it('B5: the batch deadline and a host cancel are told apart by the signal alone', () => {
    const deadline = new AbortController();
    deadline.abort(batchDeadlineReason(250));
    const host = new AbortController();
    host.abort(new Error('the host stopped'));
    expect(callResult('c', { kind: 'aborted', aborted: deadline.signal, told: true }).error).toEqual({
      code: 'call_timeout',
      message: 'the batch did not finish within 250 ms (batchTimeoutMs); the call was cancelled',
      details: { reason: 'batch_timeout', batchTimeoutMs: 250 },
    });
    expect(callResult('c', { kind: 'aborted', aborted: host.signal, told: true }).error).toEqual({
      code: 'cancelled',
      message: 'the call was cancelled by the host before it finished; the server was told',
    });
  });
});

describe('stage 1 as data', () => {
  const runner = (out: Awaited<ReturnType<BatchRunner['runBatch']>> | Error): BatchRunner => ({
    id: 'r',
    agent: 'a',
    runBatch: async () => {
      if (out instanceof Error) throw out;
      return out;
    },
  });

  it('B6: executeModelCalls turns a rejection given as data into a result per call', async () => {
    const out = await executeModelCalls(
      runner({
        rejected: {
          reason: 'unknown_tool',
          message: 'the whole batch was rejected, nothing ran: "x" is not a tool of this run',
          problems: [{ reason: 'unknown_tool', message: '"x" is not a tool of this run', index: 1, callId: 'b', tool: 'x' }],
        },
      }),
      [
        { callId: 'a', name: 'y', arguments: {} },
        { callId: 'b', name: 'x', arguments: {} },
      ],
      { batchId: 's1' },
    );
    expect(out.rejected).toEqual({ reason: 'unknown_tool', message: expect.stringContaining('nothing ran') });
    expect(out.results.map((r: ToolResult) => [r.callId, r.status, r.status === 'ok' ? '' : r.error.code])).toEqual([
      ['a', 'tool_failed', 'batch_rejected'],
      ['b', 'invalid_arguments', 'invalid_arguments'],
    ]);
  });

  it('B6: executeModelCalls catches nothing: a batch_rejected thrown by a runner is not turned into results', async () => {
    const thrown = new AgtError('batch_rejected', 'thrown, not data');
    await expect(executeModelCalls(runner(thrown), [{ callId: 'a', name: 'y' }], { batchId: 's1' })).rejects.toBe(thrown);
  });
});
