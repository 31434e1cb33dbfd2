/**
 * The waiting call as a record (no process): what resume reads of a stored call — the 0.1 form of an approval
 * included — and what it refuses; the decision a stored in-flight record pairs with its call; how the open calls
 * take a decision of each kind.
 */
import { describe, expect, it } from 'vitest';
import { isInFlightCall, readInFlightCall } from '../../../src/runtime/pending/in-flight.js';
import { OpenCalls } from '../../../src/runtime/pending/open-calls.js';
import { decisionFits, isStoredCall, readWaitingCall, type WaitingCall } from '../../../src/runtime/pending/waiting-call.js';

const base = {
  batchId: 'b1',
  callId: 'c1',
  index: 0,
  tool: 'py__echo',
  kind: 'mcp' as const,
  arguments: { text: 'x' },
  by: 'policy',
  deferredAt: '2026-12-07T00:00:00.000Z',
  expiresAt: '2026-12-08T00:00:00.000Z',
  toolHash: 'h',
};
const approval: WaitingCall = { ...base, waitingFor: 'approval' };
const input: WaitingCall = {
  ...base,
  callId: 'q1',
  waitingFor: 'input',
  round: 1,
  requests: { ok: { method: 'elicitation/create', params: {} } },
};
const task: WaitingCall = { ...base, callId: 't1', waitingFor: 'task', task: { id: 'task-1', status: 'working' } };
const lease = { host: 'h:1:x', decidedAt: base.deferredAt, leaseUntil: base.expiresAt };
const noCheck = () => undefined;

describe('a waiting call as its run record stores it', () => {
  it('F7: a 0.1 approval (no waitingFor) reads as an approval; the three kinds of today read as themselves', () => {
    const { waitingFor: _, ...old } = { ...approval };
    expect(isStoredCall(old)).toBe(true);
    expect(readWaitingCall(old)).toEqual(approval);
    for (const call of [approval, input, task]) {
      expect(isStoredCall(call)).toBe(true);
      expect(readWaitingCall(call)).toBe(call);
    }
  });

  it('F7: resume refuses a record that lies about its kind: an unknown waitingFor, a question without its round or questions, a task without its task or with a round of 0', () => {
    const forged = [
      { ...approval, waitingFor: 'later' },
      { ...input, round: undefined },
      { ...input, round: 0 },
      { ...input, requests: { ok: { method: 'tools/call', params: {} } } },
      { ...task, task: undefined },
      { ...task, round: 0 },
      { ...task, task: { id: '', status: 'working' } },
    ];
    expect(forged.map(isStoredCall)).toEqual(forged.map(() => false));
  });

  it('E8: a stored in-flight record pairs its call with a decision of its kind; a forged pairing is refused on resume', () => {
    expect(isInFlightCall({ approval, decision: { approve: true }, ...lease })).toBe(true);
    expect(isInFlightCall({ approval: input, decision: { answers: { ok: { action: 'accept', content: {} } } }, ...lease })).toBe(true);
    expect(isInFlightCall({ approval: task, decision: { collect: true }, ...lease })).toBe(true);
    const { waitingFor: _, ...old } = { ...approval };
    const oldRecord = { approval: old, decision: { approve: true }, ...lease };
    expect(isInFlightCall(oldRecord)).toBe(true);
    expect(readInFlightCall(oldRecord as never).approval.waitingFor).toBe('approval');
    // An approval with a task's collect, a task with an approve, a question with no answers: refused.
    expect(isInFlightCall({ approval, decision: { collect: true }, ...lease })).toBe(false);
    expect(isInFlightCall({ approval: task, decision: { approve: true }, ...lease })).toBe(false);
    expect(isInFlightCall({ approval: input, decision: {}, ...lease })).toBe(false);
    expect(decisionFits(task, { cancel: true })).toBe(true);
  });
});

describe('the open calls of a run take a decision of each kind', () => {
  it('B3: a host decides approvals and questions; a task call is only collected or cancelled — anything else is invalid_input, and nothing is taken', () => {
    const open = new OpenCalls();
    for (const call of [approval, input, task]) open.add(call);
    expect(() => open.take('b1', { t1: { approve: true } }, noCheck)).toThrow(expect.objectContaining({ code: 'invalid_input' }));
    expect(() => open.take('b1', { t1: { collect: 'yes' } }, noCheck, true)).toThrow(expect.objectContaining({ code: 'invalid_input' }));
    expect(() => open.take('b1', { c1: { approve: 'yes' } }, noCheck)).toThrow(expect.objectContaining({ code: 'invalid_input' }));
    expect(open.list('b1').map((c) => c.callId)).toEqual(['c1', 'q1', 't1']); // a refused decision takes nothing
    const taken = open.take('b1', { c1: { approve: false, reason: 'no' }, q1: { decline: true } }, noCheck);
    expect(taken.map((t) => [t.approval.waitingFor, t.decision])).toEqual([
      ['approval', { approve: false, reason: 'no' }],
      ['input', { decline: true }],
    ]);
    // A collect's failure is kept only with a listed code (the record of a stopped task is the run's own words).
    const collected = open.take('b1', { t1: { collect: true, failure: { code: 'no_such_code', message: 'x' } } }, noCheck, true);
    expect(collected[0]?.decision).toEqual({ collect: true });
    expect(() => open.take('b1', { t1: { cancel: true } }, noCheck, true)).toThrow(expect.objectContaining({ code: 'not_found' }));
  });
});
