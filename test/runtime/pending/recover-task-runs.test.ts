/**
 * A run whose call waits on a task (format 4) can still have decided calls in
 * flight, and its record must resume on any host (E6, E8):
 * the host deciding a call can die, and then another host recovers the
 * call and collects the task. A kit task server over loopback HTTP, the
 * Python server over stdio (its `never` tool holds the call in flight), a real
 * SQLite file.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { createToolServer, type HttpToolService, serveHttp } from '../../../src/authoring/index.js';
import { MemoryStore, NativeRun, policies, ResourceService, toolAlias } from '../../../src/index.js';
import { SqliteRunStore } from '../../../src/storage/sqlite.js';
import { tempDir } from '../../support/index.js';
import { pythonConfig } from '../../support/servers.js';
import { taskTools } from '../../authoring/fixtures/task-tools.js';

const tmp = tempDir('agt-recover-tasks-');
const log = path.join(tmp.dir, 'tools.log');
let service: HttpToolService;
beforeAll(async () => {
  service = await serveHttp(() =>
    createToolServer({ name: 'run-tasks', version: '1.0.0', tools: taskTools(log), tasks: { pollIntervalMs: 50 } }),
  );
});
afterAll(async () => {
  await service.close();
  tmp.cleanup();
});

it('E8: a record with a call waiting on its task and a decided call in flight (format 4) resumes elsewhere: recovered, then collected', async () => {
  const registry = new ResourceService({ store: new MemoryStore() });
  await registry.write({ kind: 'mcp', reference: 'tools/tasks', create: true, data: { mcpServers: { tasks: { url: service.url } } } });
  const py = pythonConfig({ extra: ['--feature', 'slow', '--log', path.join(tmp.dir, 'py.log')] });
  await registry.write({ kind: 'mcp', reference: 'tools/py', create: true, data: { mcpServers: { py } } });
  await registry.write({ kind: 'agent', reference: 'team/t', create: true, data: { mcps: ['tools/tasks', 'tools/py'] } });
  const never = toolAlias('tools/py', 'never');
  const options = { service: registry, policy: policies.chain(policies.approval(never), policies.autoAllow('*')), tasks: 'defer' as const };
  const store = new SqliteRunStore({ path: path.join(tmp.dir, 'runs.db') });
  const hold = path.join(tmp.dir, 'hold-r');
  const first = await NativeRun.start({ agent: 'team/t', ...options });
  const open: NativeRun[] = [first];
  try {
    const report = { callId: 'r1', name: toolAlias('tools/tasks', 'report'), arguments: { id: 'r', hold } };
    await first.executeBatch({ runId: first.id, agent: first.agent, batchId: 'b1', calls: [report] });
    await first.executeBatch({ runId: first.id, agent: first.agent, batchId: 'b2', calls: [{ callId: 'n1', name: never, arguments: {} }] });
    await first.suspend({ store });
    // The deciding host: its call never ends; it stops renewing nothing, so its 1 s lease runs out as a dead host's would.
    const decider = await NativeRun.resume(first.id, { ...options, store, inFlightLeaseMs: 1000 });
    open.push(decider);
    void decider.decide('b2', { n1: { approve: true } }).catch(() => undefined);
    await vi.waitFor(async () => expect((await store.get(first.id))?.state.inFlight).toHaveLength(1), { timeout: 30_000, interval: 20 });
    const left = (await store.get(first.id))!.state;
    expect([left.version, left.pending?.map((p) => p.waitingFor)]).toEqual([4, ['task']]);
    await vi.waitFor(() => expect(Date.now()).toBeGreaterThan(Date.parse(left.inFlight![0]!.leaseUntil)), { timeout: 30_000 });
    // Before: store_unavailable "a tampered or corrupt record" — no host could recover the call or collect the task.
    const other = await NativeRun.resume(first.id, { ...options, store });
    open.push(other);
    const { recovered } = await other.recover();
    expect(recovered.map((r) => [r.result.callId, r.result.status, r.rerun])).toEqual([['n1', 'interrupted', false]]);
    fs.writeFileSync(hold, '');
    const collected = await other.collect('b1', { waitMs: 20_000 });
    expect(collected.results.map((r) => [r.callId, r.status])).toEqual([['r1', 'ok']]);
    const end = (await store.get(first.id))!.state;
    expect([end.inFlight, end.pending]).toEqual([undefined, undefined]);
  } finally {
    await Promise.all(open.map((r) => r.close()));
    await store.close();
  }
}, 60_000);
