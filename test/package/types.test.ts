/**
 * Type tests: `runCall`'s overloads, the kind-tagged
 * unions of a call's end and the pipeline's outcomes, the public result
 * unions, and AgtError details that narrow on the code. The `expectTypeOf`
 * lines are checked by `npm run typecheck` (tsc includes test/); each test
 * also checks at run time that the values have the shape the types claim.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import { AgtError, isAgtError, MemoryStore, ResourceService, type ToolResult, type WriteInput } from '../../src/index.js';
import type { AgtErrorDetails, AnyAgtError } from '../../src/adapters.js';
import type { McpDocument } from '../../src/index.js';
import { callResult, type CallEnd, type FailedResult } from '../../src/runtime/pipeline/call-result.js';
import { type CallAsked, type CallDeferred, type CallEnded, type PipelineOutcome, runCall } from '../../src/runtime/pipeline/pipeline.js';
import { NEVER_ABORTED } from '../../src/runtime/pipeline/abort.js';
import { ToolSchemaRegistry } from '../../src/schema/registry.js';
import type { PendingCall } from '../../src/index.js';
import { pendingView, readWaitingCall } from '../../src/runtime/pending/waiting-call.js';

const route = { validator: new ToolSchemaRegistry().compile({ type: 'object' }, { tool: 't' }) };
const read = { ok: true as const, value: {} };

describe('type tests', () => {
  it("B3: runCall's overloads: no policy and an executor that never asks → CallEnded; no policy → ended or asked; a policy → any outcome", async () => {
    const never = { signal: NEVER_ABORTED, execute: async (id: string) => callResult(id, { kind: 'output', output: 'done' }) };
    const ended = runCall('c1', route, read, never);
    expectTypeOf(ended).toEqualTypeOf<Promise<CallEnded>>();
    const asking = {
      signal: NEVER_ABORTED,
      execute: async (id: string): Promise<ToolResult | { asked: never }> => callResult(id, { kind: 'output', output: 'x' }),
    };
    expectTypeOf(runCall('c2', route, read, asking)).toEqualTypeOf<Promise<CallEnded | CallAsked>>();
    expectTypeOf<PipelineOutcome>().toEqualTypeOf<CallEnded | CallAsked | CallDeferred>();
    expectTypeOf<PipelineOutcome['kind']>().toEqualTypeOf<'ended' | 'asked' | 'deferred'>();
    const outcome = await ended;
    expect(outcome).toMatchObject({ kind: 'ended', result: { callId: 'c1', status: 'ok' } });
  });

  it("B3: a call's end is told apart by kind, and a failure's result is a FailedResult", () => {
    expectTypeOf<CallEnd['kind']>().toEqualTypeOf<'answer' | 'output' | 'failed' | 'thrown' | 'aborted' | 'callError'>();
    const failed = callResult('c3', { kind: 'thrown', thrown: new Error('boom'), fallback: 'it failed' });
    expectTypeOf(failed).toEqualTypeOf<FailedResult>();
    expectTypeOf(failed.error.code).toBeString();
    expect(failed).toEqual({ callId: 'c3', status: 'tool_failed', error: { code: 'tool_failed', message: 'it failed' } });
  });

  it('B5: a ToolResult narrows on status: ok has content, every other status an error', () => {
    const result: ToolResult = callResult('c4', { kind: 'answer', answer: { content: [{ type: 'text', text: 'hi' }] } });
    if (result.status === 'ok') expectTypeOf(result.content).toEqualTypeOf<unknown[]>();
    else expectTypeOf(result.error).toHaveProperty('code');
    expect(result).toEqual({ callId: 'c4', status: 'ok', content: [{ type: 'text', text: 'hi' }] });
  });

  it("P2: an AgtError's details narrow on its code after isAgtError; the constructor takes only its code's payload", () => {
    const thrown: unknown = new AgtError('protocol_mismatch', 'no such era', {
      details: { pinned: '2026-07-28', offered: ['2025-06-18'] },
    });
    expect(isAgtError(thrown)).toBe(true);
    if (!isAgtError(thrown)) return;
    expectTypeOf(thrown).toEqualTypeOf<AnyAgtError>();
    if (thrown.code === 'protocol_mismatch') {
      expectTypeOf(thrown.details).toEqualTypeOf<AgtErrorDetails['protocol_mismatch'] | undefined>();
      expectTypeOf(thrown.details?.offered).toEqualTypeOf<readonly string[] | undefined>();
      expect(thrown.details?.offered).toEqual(['2025-06-18']);
    }
    if (thrown.code === 'handshake_timeout') expectTypeOf(thrown.details?.timeoutMs).toEqualTypeOf<number | undefined>();
    // @ts-expect-error: a handshake_timeout's timeoutMs is a number
    void new AgtError('handshake_timeout', 'slow', { details: { timeoutMs: 'soon' } });
  });

  it("R2: service.write's data is typed by kind (a typo in an mcp document fails tsc); the run-time check still refuses it", async () => {
    const service = new ResourceService({ store: new MemoryStore() });
    const typo = () =>
      service.write({
        kind: 'mcp',
        reference: 'tools/typo',
        create: true,
        // @ts-expect-error -- "commmand" is no field of a server config (tsc refuses it: npm run typecheck)
        data: { mcpServers: { x: { commmand: 'node', cwd: '/srv' } } },
      });
    // @ts-expect-error -- an agent's role is "manager" or "worker"
    const role = () => service.write({ kind: 'agent', reference: 'team/a', create: true, data: { role: 'boss' } });
    // @ts-expect-error -- a skill's description is a string
    const skill = () => service.write({ kind: 'skill', reference: 'team/s', create: true, data: { description: 3 } });
    expectTypeOf<Extract<WriteInput, { kind: 'mcp' }>['data']>().toEqualTypeOf<McpDocument | undefined>();
    for (const write of [typo, role, skill]) {
      const error = await write().catch((e: unknown) => e);
      expect(isAgtError(error) && error.code).toBe('invalid_input'); // untyped callers meet the same rules at run time
    }
  });
  it('B3, E4, E6: a PendingCall narrows on waitingFor with no assertion — an input call has its questions and round, a task call its task', () => {
    expectTypeOf<PendingCall['waitingFor']>().toEqualTypeOf<'approval' | 'input' | 'task'>();
    // What a host writes: a switch on waitingFor, each branch reading its own fields with no `!` and no cast.
    const describe = (p: PendingCall): string => {
      switch (p.waitingFor) {
        case 'approval':
          expectTypeOf(p).not.toHaveProperty('requests');
          return `approve ${p.tool}? ${p.reason ?? ''}`.trim();
        case 'input':
          expectTypeOf(p.round).toEqualTypeOf<number>();
          expectTypeOf(p.requests).toMatchTypeOf<Readonly<Record<string, { method: string }>>>();
          return `round ${p.round}: ${Object.keys(p.requests).join(', ')}`;
        case 'task':
          expectTypeOf(p.task.id).toEqualTypeOf<string>();
          return `task ${p.task.id} ${p.task.status}`;
      }
    };
    const base = {
      batchId: 'b1',
      index: 0,
      tool: 'py__echo',
      kind: 'mcp' as const,
      arguments: { text: 'x' },
      by: 'policy',
      deferredAt: '2026-12-07T00:00:00.000Z',
      expiresAt: '2026-12-08T00:00:00.000Z',
      toolHash: 'h',
    };
    // A 0.1 record of an approval has no waitingFor: it reads as an approval.
    const approval = pendingView(readWaitingCall({ ...base, callId: 'a1', reason: 'writes' }));
    const input = pendingView({
      ...base,
      callId: 'q1',
      waitingFor: 'input',
      round: 2,
      requests: { ok: { method: 'elicitation/create', params: {} } },
    });
    const task = pendingView({ ...base, callId: 't1', waitingFor: 'task', task: { id: 'task-1', status: 'working', ttlMs: null } });
    expect([approval, input, task].map(describe)).toEqual(['approve py__echo? writes', 'round 2: ok', 'task task-1 working']);
  });
});
