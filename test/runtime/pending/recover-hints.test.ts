/**
 * run.recover() decides what runs again from the tool as its server lists it
 * now, not from the run record alone (E8): a record is data
 * someone may have edited, so a lost call runs again only when the record's
 * `idempotentHint` and the live tool's both say so. A real Python server over
 * stdio, a real SQLite file edited with SQL.
 */
import path from 'node:path';
import { expect, it } from 'vitest';
import { NativeRun, policies } from '../../../src/index.js';
import type { StoredInFlightCall } from '../../../src/runtime/pending/in-flight.js';
import { SqliteRunStore } from '../../../src/storage/sqlite.js';
import { batch, py, runFixture } from '../../support/index.js';
import { rawSqlite } from '../../support/sqlite.js';

const fx = runFixture();
// add declares idempotentHint: true; withdraw is destructive and declares no idempotentHint (test/fixtures/mcp_server.py).
const deferAll = () => policies.chain(policies.approval(py('withdraw')), policies.approval(py('add')), policies.autoAllow('*'));

it('E8: recover() reruns a lost call only when its record and the tool as listed now both say idempotentHint', async () => {
  const run = await fx.start({ policy: deferAll() });
  const file = path.join(fx.env.tmp.dir, 'runs.db');
  const store = new SqliteRunStore({ path: file });
  try {
    const calls = [
      { callId: 'a1', name: py('add'), arguments: { a: 1, b: 2 } },
      { callId: 'a2', name: py('add'), arguments: { a: 3, b: 4 } },
      { callId: 'w1', name: py('withdraw'), arguments: { amount: 7 } },
    ];
    await run.executeBatch({ ...batch(run, calls), batchId: 'b1' });
    await run.suspend({ store });
    // The record as someone who can write the store leaves it: the calls decided by a host that died (its lease ran
    // out), withdraw's stored annotations claiming idempotentHint: true, a2's hint taken away.
    const { pending, ...state } = (await store.get(run.id))!.state;
    const lapsed = new Date(Date.now() - 60_000).toISOString();
    const hint = { a1: true, a2: undefined, w1: true } as Record<string, true | undefined>;
    const inFlight: StoredInFlightCall[] = pending!.flatMap((approval) =>
      approval.waitingFor !== 'input' && approval.waitingFor !== 'task' // an approval: stored without waitingFor
        ? [
            {
              approval: { ...approval, annotations: { ...approval.annotations, idempotentHint: hint[approval.callId] } },
              decision: { approve: true },
              host: 'dead-host:1:00000000',
              decidedAt: lapsed,
              leaseUntil: lapsed,
            },
          ]
        : [],
    );
    expect(inFlight.map((c) => c.approval.annotations?.destructiveHint === true)).toEqual([false, false, true]);
    const raw = rawSqlite(file);
    try {
      raw
        .prepare('UPDATE agt_runs SET state = ?, format = 3 WHERE run_id = ?')
        .run(JSON.stringify({ ...state, version: 3, inFlight }), run.id);
    } finally {
      raw.close();
    }
    const recovering = await NativeRun.resume(run.id, { store, service: fx.env.service, policy: policies.denyAll() });
    try {
      const { recovered } = await recovering.recover();
      expect(recovered.map((r) => [r.result.callId, r.result.status, r.rerun])).toEqual([
        ['a2', 'interrupted', false], // the server says idempotent, the record does not: not both
        ['w1', 'interrupted', false], // the record says idempotent, the server does not: never run again
        ['a1', 'ok', true],
      ]);
      expect(fx.env.calls()).toEqual([{ tool: 'add', arguments: { a: 1, b: 2 } }]); // withdraw never ran
    } finally {
      await recovering.close();
    }
    expect((await store.get(run.id))!.state.inFlight).toBeUndefined();
  } finally {
    await store.close();
  }
});
