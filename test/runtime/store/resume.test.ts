/** Suspend and resume through a RunStore, and a run's audit in a store (F6, F7, B2): runs on the Python fixture server. */
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MemoryRunStore, NativeRun, policies, StoreAuditSink } from '../../../src/index.js';
import { SqliteAuditStore, SqliteRunStore } from '../../../src/storage/sqlite.js';
import { RUN_FORMAT_VERSION } from '../../../src/adapters.js';
import { batch, py, runFixture, tempDir } from '../../support/index.js';

const tmp = tempDir('agt-runstore-');
afterAll(() => tmp.cleanup());
let files = 0;
const file = () => path.join(tmp.dir, `runs-${files++}.db`);

describe('suspend and resume through a RunStore', () => {
  const fx = runFixture();

  it('F6: suspend({ store }) writes the state; resume(runId, { store }) continues the run with its seen batches', async () => {
    const store = new SqliteRunStore({ path: file() });
    const run = await fx.start();
    await run.executeBatch({ ...batch(run, [{ callId: 'e', name: py('echo'), arguments: { message: 'one' } }]), batchId: 'first' });
    const state = await run.suspend({ store });
    expect(await store.get(run.id)).toMatchObject({ runId: run.id, agent: 'team/alice', revision: 1, state });
    const again = await NativeRun.resume(run.id, { store, service: fx.env.service, policy: policies.autoAllow('*') });
    expect(again.snapshot.fingerprint).toBe(run.snapshot.fingerprint);
    await expect(again.executeBatch({ runId: again.id, agent: again.agent, batchId: 'first', calls: [] })).rejects.toMatchObject({
      details: { reason: 'duplicate_batch_id' },
    });
    await again.suspend({ store });
    expect((await store.get(run.id))?.revision).toBe(2);
    // The first host's copy is now stale: its next suspend is a revision conflict, nothing is overwritten.
    await expect(run.suspend({ store })).rejects.toMatchObject({ code: 'revision_conflict', details: { currentRevision: 2 } });
    await again.close();
    await store.close();
  });

  it('resume by run id: a missing run is not_found, no store is invalid_input, a newer format is store_unavailable newer_format naming its version', async () => {
    const store = new MemoryRunStore();
    const run = await fx.start();
    const options = { service: fx.env.service, policy: policies.autoAllow('*') };
    await expect(NativeRun.resume('run-none', { ...options, store })).rejects.toMatchObject({ code: 'not_found' });
    await expect(NativeRun.resume(run.id, options)).rejects.toMatchObject({
      code: 'invalid_input',
      message: expect.stringMatching(/needs \{ store \}/),
    });
    const state = { ...(await run.suspend()), version: RUN_FORMAT_VERSION + 1 };
    await expect(NativeRun.resume(state as never, options)).rejects.toMatchObject({
      code: 'store_unavailable',
      details: { reason: 'newer_format', formatVersion: RUN_FORMAT_VERSION + 1 },
      message: expect.stringMatching(new RegExp(`format version ${RUN_FORMAT_VERSION + 1}`)),
    }); // the same rule as a stored record of a newer format
  });

  it("StoreAuditSink keeps a run's audit queryable by run id, with no argument values", async () => {
    const audit = new SqliteAuditStore({ path: file() });
    const run = await fx.start({ audit: new StoreAuditSink(audit) });
    await run.executeBatch(
      batch(run, [
        { callId: 'e', name: py('echo'), arguments: { message: 'secret-argument-value' } },
        { callId: 'x', name: py('add'), arguments: { a: 'oops' } },
      ]),
    );
    const events = await audit.query({ runId: run.id, type: 'tool_call' });
    expect(events.map((e) => (e.type === 'tool_call' ? [e.callId, e.status] : [])).sort()).toEqual([
      ['e', 'ok'],
      ['x', 'invalid_arguments'],
    ]); // in the order the calls ended
    expect(JSON.stringify(events)).not.toContain('secret-argument-value');
    await audit.close();
  });
});
