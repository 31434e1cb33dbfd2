/**
 * auditStoreConformanceSuite: one contract test for every AuditStore adapter,
 * ours and third parties', registered and asserted as runStoreConformanceSuite
 * does (same options).
 *
 * ```ts
 * auditStoreConformanceSuite(() => new MyAuditStore(), { test: it });
 * ```
 */
import assert from 'node:assert/strict';
import type { AuditStore } from '../runtime/audit/audit-store.js';
import type { AuditEvent } from '../runtime/audit/audit-events.js';
import type { RunStoreConformanceOptions } from './run-store-conformance.js';
import { caseRegistrar, expectCode } from './store-conformance.js';

/** Registers the AuditStore contract cases for stores made by `factory` (a fresh, empty store per case). */
export function auditStoreConformanceSuite(factory: () => AuditStore | Promise<AuditStore>, options: RunStoreConformanceOptions): void {
  const run = caseRegistrar(factory, options, options.label ?? 'AuditStore');
  // `n`: a field a later version may add; stores keep every field of an event.
  const event = (runId: string, type: 'tool_call' | 'refresh', n: number): AuditEvent => {
    const base = { at: new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString(), runId, agent: 'team/a', n, durationMs: n };
    return type === 'tool_call'
      ? { ...base, type, batchId: 'b1', callId: `c${n}`, tool: 'ü/✓', kind: 'mcp', status: 'ok' }
      : { ...base, type, trigger: 'framework_change', status: 'applied', message: 'tools reloaded' };
  };

  const nOf = (e: AuditEvent) => (e as AuditEvent & { n?: number }).n;
  run('events come back per run, in order, filtered by type and limited', async (store) => {
    for (let n = 0; n < 6; n++) await store.append(event(n % 2 === 0 ? 'run-a' : 'run-b', n < 4 ? 'tool_call' : 'refresh', n));
    assert.deepEqual((await store.query({ runId: 'run-a' })).map(nOf), [0, 2, 4]);
    assert.deepEqual((await store.query({ runId: 'run-a', type: 'tool_call' })).map(nOf), [0, 2]);
    assert.deepEqual((await store.query({ runId: 'run-b', limit: 2 })).map(nOf), [1, 3]);
    assert.deepEqual(await store.query({ runId: 'run-none' }), []);
    assert.deepEqual((await store.query({ runId: 'run-a' }))[0], event('run-a', 'tool_call', 0));
  });

  run('an event without a run id, or a query without one, is invalid_input', async (store) => {
    // The store as a JavaScript caller may reach it (its append takes `unknown`, so every AuditStore is one).
    const unchecked: { append(event: unknown): Promise<void> } = store;
    await expectCode(unchecked.append({ type: 'tool_call', at: new Date().toISOString() }), 'invalid_input');
    await expectCode(store.query({ runId: '' }), 'invalid_input');
    await expectCode(store.query({ runId: 'r', limit: 0 }), 'invalid_input');
  });
}
