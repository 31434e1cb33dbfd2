/**
 * runStoreConformanceSuite: one contract test for every RunStore adapter,
 * ours and third parties' (auditStoreConformanceSuite, its AuditStore twin,
 * is in audit-store-conformance.ts). Like storeConformanceSuite, it registers
 * cases through your test function and asserts with node:assert.
 *
 * ```ts
 * runStoreConformanceSuite(() => new MyRunStore(), { test: it });
 * ```
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { MAX_RUN_ID_BYTES } from '../bounds.js';
import type { SuspendedRun } from '../runtime/run-options.js';
import { RUN_FORMAT_VERSION, type RunStore } from '../runtime/store/run-store.js';
import { caseRegistrar, expectCode, type TestFunction } from './store-conformance.js';

/** Options of the run and audit store suites (auditStoreConformanceSuite takes them too). */
export interface RunStoreConformanceOptions {
  test: TestFunction;
  /** Prefix of every case name. */
  label?: string;
  /** Called with each store after its case (after `close()`). */
  cleanup?: (store: unknown) => unknown;
  /** How many concurrent writers the race case uses. Default 20. */
  contenders?: number;
}

const state = (runId: string, agent = 'team/a', extra: Partial<SuspendedRun> = {}): SuspendedRun => ({
  version: 1,
  runId,
  agent,
  fingerprint: 'f'.repeat(64),
  settingsHash: 's'.repeat(64),
  mountsHash: 'm'.repeat(64),
  seenBatchIds: ['b1', 'ünïcode ✓'],
  ...extra,
});
const write = (runId: string, agent = 'team/a', extra: Partial<SuspendedRun> = {}) => ({ runId, agent, state: state(runId, agent, extra) });

// A store as a JavaScript caller (or a stored row) may reach it, any value where the types want one: the cases of
// input the types rule out call it so. Its methods take `unknown`, so every RunStore is one.
interface UncheckedRunStore {
  list(filter: unknown): Promise<unknown>;
  put(run: unknown, options: { expectedRevision: number | null }): Promise<unknown>;
}

function register<S extends { close?(): Promise<void> }>(
  factory: () => S | Promise<S>,
  options: RunStoreConformanceOptions,
  label: string,
) {
  return caseRegistrar(factory, options, options.label ?? label);
}

/** Registers the RunStore contract cases for stores made by `factory` (a fresh, empty store per case). */
export function runStoreConformanceSuite(factory: () => RunStore | Promise<RunStore>, options: RunStoreConformanceOptions): void {
  const run = register(factory, options, 'RunStore');
  const contenders = options.contenders ?? 20;

  run('get of a missing run is undefined', async (store) => {
    assert.equal(await store.get('run-missing'), undefined);
  });

  run('create (expectedRevision null) gives revision 1, timestamps and a copy of the state', async (store) => {
    const w = write('run-1');
    const created = await store.put(w, { expectedRevision: null });
    assert.equal(created.revision, 1);
    assert.deepEqual(created.state, state('run-1'));
    assert.ok(!Number.isNaN(Date.parse(created.createdAt)) && created.createdAt === created.updatedAt);
    w.state.seenBatchIds.push('changed after put');
    created.state.seenBatchIds.push('changed the returned copy');
    assert.deepEqual((await store.get('run-1'))?.state, state('run-1'));
  });

  run('create of an existing run fails with revision_conflict and writes nothing', async (store) => {
    await store.put(write('run-1'), { expectedRevision: null });
    await expectCode(store.put(write('run-1', 'team/b'), { expectedRevision: null }), 'revision_conflict', (d) =>
      assert.equal(d?.currentRevision, 1),
    );
    assert.equal((await store.get('run-1'))?.agent, 'team/a');
  });

  run('compare-and-set: the current revision wins, a stale one or a missing run fails', async (store) => {
    const first = await store.put(write('run-1'), { expectedRevision: null });
    const second = await store.put(write('run-1', 'team/a', { seenBatchIds: ['b1', 'b2'] }), { expectedRevision: 1 });
    assert.equal(second.revision, 2);
    assert.equal(second.createdAt, first.createdAt);
    await expectCode(store.put(write('run-1'), { expectedRevision: 1 }), 'revision_conflict', (d) => assert.equal(d?.currentRevision, 2));
    await expectCode(store.put(write('run-none'), { expectedRevision: 3 }), 'revision_conflict', (d) =>
      assert.equal(d?.currentRevision, null),
    );
    assert.deepEqual((await store.get('run-1'))?.state.seenBatchIds, ['b1', 'b2']);
    assert.equal(await store.get('run-none'), undefined);
  });

  run('a put without expectedRevision (or with a bad one) is invalid_input and writes nothing, as in ResourceStore', async (store) => {
    for (const options of [undefined, {}, { expectedRevision: 0 }, { expectedRevision: 1.5 }, { expectedRevision: '1' }]) {
      await expectCode((store.put as (w: unknown, o?: unknown) => Promise<unknown>)(write('run-1'), options), 'invalid_input', (d) =>
        assert.equal(d?.field, 'expectedRevision'),
      );
    }
    assert.equal(await store.get('run-1'), undefined);
  });

  run('list is ordered by run id and filters by agent', async (store) => {
    for (const [id, agent] of [
      ['run-b', 'team/x'],
      ['run-a', 'team/y'],
      ['Run-c', 'team/x'],
      ['run-a2', 'team/x'],
    ] as const)
      await store.put(write(id, agent), { expectedRevision: null });
    assert.deepEqual(
      (await store.list()).map((r) => r.runId),
      ['Run-c', 'run-a', 'run-a2', 'run-b'],
    );
    assert.deepEqual(
      (await store.list({ agent: 'team/x' })).map((r) => r.runId),
      ['Run-c', 'run-a2', 'run-b'],
    );
    assert.deepEqual(await store.list({ agent: 'team/none' }), []);
  });

  run('list({ waiting }) gives the runs with pending calls or calls in flight (format 2, 3), paged by limit and cursor', async (store) => {
    const pending: Partial<SuspendedRun> = { version: 2, pending: [] };
    const runs: [string, string, Partial<SuspendedRun>][] = [
      ['run-1', 'team/x', {}],
      ['run-2', 'team/x', pending],
      ['run-3', 'team/y', { version: 3, inFlight: [] }],
      ['run-4', 'team/x', pending],
      ['run-5', 'team/x', {}],
    ];
    for (const [id, agent, extra] of runs) await store.put(write(id, agent, extra), { expectedRevision: null });
    const ids = (runs: { runId: string }[]) => runs.map((r) => r.runId);
    assert.deepEqual(ids(await store.list({ waiting: true })), ['run-2', 'run-3', 'run-4']);
    assert.deepEqual(ids(await store.list({ waiting: true, agent: 'team/x' })), ['run-2', 'run-4']);
    assert.deepEqual(ids(await store.list({ waiting: false })), ['run-1', 'run-2', 'run-3', 'run-4', 'run-5']);
    assert.deepEqual(ids(await store.list({ waiting: true, limit: 2 })), ['run-2', 'run-3']);
    assert.deepEqual(ids(await store.list({ waiting: true, limit: 2, cursor: 'run-3' })), ['run-4']);
    assert.deepEqual(ids(await store.list({ limit: 2, cursor: 'run-2' })), ['run-3', 'run-4']);
    // A run decided to the end is no longer waiting.
    await store.put(write('run-2', 'team/x'), { expectedRevision: 1 });
    assert.deepEqual(ids(await store.list({ waiting: true })), ['run-3', 'run-4']);
    const unchecked: UncheckedRunStore = store;
    for (const bad of [{ limit: 0 }, { limit: 1.5 }, { limit: 10_001 }, { waiting: 'yes' }, { cursor: 5 }, { agent: 1 }])
      await expectCode(unchecked.list(bad), 'invalid_input');
  });

  // E8: ordered by code point, as SQL's byte order of UTF-8 is; UTF-16 units would put U+10000 and up before U+E000–U+FFFF,
  // and a cursor from the one order would skip runs in the other (issue 58 #22).
  run('E8: list orders and pages by code point: astral run ids after U+E000–U+FFFF ones; a cursor skips no run', async (store) => {
    const astral = 'team/\u{1F600}';
    const high = 'team/\u{FFFD}';
    const order: [string, string][] = [
      ['run-\u{E000}', high],
      ['run-\u{FF5E}', astral],
      ['run-\u{FFFD}', high],
      ['run-\u{10000}', astral],
      ['run-\u{1F600}', high],
    ];
    for (const i of [4, 1, 3, 0, 2]) await store.put(write(...order[i]!), { expectedRevision: null });
    const ids = (runs: { runId: string }[]) => runs.map((r) => r.runId);
    assert.deepEqual(ids(await store.list()), ids(order.map(([runId]) => ({ runId }))));
    const paged: string[] = [];
    for (let cursor: string | undefined, page = 0; page < order.length; page++) {
      const got = ids(await store.list({ limit: 2, ...(cursor === undefined ? {} : { cursor }) }));
      if (got.length === 0) break;
      paged.push(...got);
      cursor = got.at(-1);
    }
    assert.deepEqual(paged, ids(await store.list()));
    assert.deepEqual(ids(await store.list({ cursor: 'run-\u{FFFD}' })), ['run-\u{10000}', 'run-\u{1F600}']);
    assert.deepEqual(ids(await store.list({ agent: astral })), ['run-\u{FF5E}', 'run-\u{10000}']);
    assert.deepEqual(ids(await store.list({ agent: high, cursor: 'run-\u{FFFD}' })), ['run-\u{1F600}']);
  });

  // E8: SQL keeps neither a lone surrogate (UTF-8 has none: two ids became one run) nor NUL, and indexes a run id and
  // agent only up to ~2.7 kB; refused alike by every store, before any I/O, up to MAX_RUN_ID_BYTES kept exactly.
  run('E8: a run id or agent no store keeps as given is invalid_input naming it; MAX_RUN_ID_BYTES of each is kept', async (store) => {
    const unkept = ['run-\u{D800}', 'run-\u{DC00}x', 'run-\u0000'];
    for (const bad of [...unkept, 'r'.repeat(MAX_RUN_ID_BYTES + 1), 'é'.repeat(MAX_RUN_ID_BYTES / 2 + 1)]) {
      await expectCode(store.put(write(bad), { expectedRevision: null }), 'invalid_input', (d) => assert.equal(d?.field, 'runId'));
      await expectCode(store.put(write('run-1', bad), { expectedRevision: null }), 'invalid_input', (d) => assert.equal(d?.field, 'agent'));
    }
    for (const bad of unkept) {
      await expectCode(store.get(bad), 'invalid_input');
      await expectCode(store.delete(bad), 'invalid_input');
      await expectCode(store.list({ cursor: bad }), 'invalid_input', (d) => assert.equal(d?.field, 'cursor'));
      await expectCode(store.list({ agent: bad }), 'invalid_input', (d) => assert.equal(d?.field, 'agent'));
    }
    assert.deepEqual(await store.list(), []);
    // Incompressible, so a store's index holds them as they are (PostgreSQL compresses 'xxx…').
    const noise = (seed: string) =>
      createHash('sha512')
        .update(seed)
        .digest('hex')
        .repeat(MAX_RUN_ID_BYTES / 128);
    const [runId, agent] = [noise('run'), noise('agent')];
    assert.equal(Buffer.byteLength(runId), MAX_RUN_ID_BYTES);
    const stored = await store.put(write(runId, agent), { expectedRevision: null });
    assert.deepEqual([stored.runId, stored.agent], [runId, agent]);
    assert.deepEqual(
      (await store.list({ agent })).map((r) => r.runId),
      [runId],
    );
  });

  run('delete: false when missing, true when deleted; a stale expectedRevision fails and keeps the run', async (store) => {
    assert.equal(await store.delete('run-none'), false);
    await expectCode(store.delete('run-none', { expectedRevision: 1 }), 'revision_conflict', (d) => assert.equal(d?.currentRevision, null));
    await store.put(write('run-1'), { expectedRevision: null });
    await store.put(write('run-1'), { expectedRevision: 1 });
    await expectCode(store.delete('run-1', { expectedRevision: 1 }), 'revision_conflict', (d) => assert.equal(d?.currentRevision, 2));
    assert.equal((await store.get('run-1'))?.revision, 2);
    assert.equal(await store.delete('run-1', { expectedRevision: 2 }), true);
    assert.equal(await store.get('run-1'), undefined);
    await store.put(write('run-2'), { expectedRevision: null });
    assert.equal(await store.delete('run-2'), true);
  });

  run(`${contenders} concurrent compare-and-sets on one revision: exactly one wins`, async (store) => {
    await store.put(write('run-1'), { expectedRevision: null });
    const outcomes = await Promise.allSettled(
      Array.from({ length: contenders }, (_, i) => store.put(write('run-1', `team/w${i}`), { expectedRevision: 1 })),
    );
    assert.equal(outcomes.filter((o) => o.status === 'fulfilled').length, 1);
    for (const o of outcomes) if (o.status === 'rejected') assert.equal((o.reason as { code?: string }).code, 'revision_conflict');
    assert.equal((await store.get('run-1'))?.revision, 2);
  });

  run('a run of a newer format is store_unavailable (reason newer_format) naming the version', async (store) => {
    const newer = RUN_FORMAT_VERSION + 1;
    const unchecked: UncheckedRunStore = store;
    await unchecked.put({ runId: 'run-new', agent: 'team/a', state: { ...state('run-new'), version: newer } }, { expectedRevision: null });
    await expectCode(store.get('run-new'), 'store_unavailable', (d) =>
      assert.deepEqual([d?.reason, d?.formatVersion], ['newer_format', newer]),
    );
  });

  run('a run with pending approvals (format 2) comes back field for field, arguments included', async (store) => {
    const pending = [
      {
        batchId: 'b1',
        callId: 'c1',
        index: 0,
        waitingFor: 'approval' as const,
        tool: 'files__write',
        kind: 'mcp' as const,
        mount: 'tools/files',
        remoteTool: 'write',
        annotations: { destructiveHint: true },
        arguments: { path: 'ünïcode ✓.txt', lines: [1, 2.5, null, { deep: [true] }] },
        by: 'policy',
        reason: 'writes need a human',
        deferredAt: '2026-12-04T10:00:00.000Z',
        expiresAt: '2026-12-05T10:00:00.000Z',
        toolHash: 'h'.repeat(64),
      },
    ];
    await store.put(write('run-pending', 'team/a', { version: 2, pending }), { expectedRevision: null });
    assert.deepEqual((await store.get('run-pending'))?.state.pending, pending);
  });

  run("a write without a run id, or with another run's state, is invalid_input", async (store) => {
    await expectCode(store.put({ runId: '', agent: 'team/a', state: state('') }, { expectedRevision: null }), 'invalid_input');
    await expectCode(store.put({ runId: 'run-1', agent: 'team/a', state: state('run-2') }, { expectedRevision: null }), 'invalid_input');
    assert.deepEqual(await store.list(), []);
  });
}
