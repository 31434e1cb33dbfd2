/**
 * `await using` ends what a scope opened: runs and connections end their
 * server processes, stores and services close their files (B1, P2).
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { connectMcp, NativeRun, policies, ResourceService } from '../../src/index.js';
import { SqliteRunStore, SqliteStore } from '../../src/storage/sqlite.js';
import { livingWithMarker, marker, pythonConfig, tempDir } from '../support/index.js';

describe('Symbol.asyncDispose', () => {
  it('P2: a connection in `await using` ends its server at the end of the scope', async () => {
    const mark = marker();
    {
      await using connection = await connectMcp(pythonConfig({ mark }));
      expect((await connection.listTools()).length).toBeGreaterThan(0);
      expect(livingWithMarker(mark)).toHaveLength(1);
    }
    expect(livingWithMarker(mark)).toEqual([]);
  });

  it('B1: a run, its service and its stores in `await using` are all closed at the end of the scope', async () => {
    const tmp = tempDir('agt-dispose-');
    const mark = marker();
    const file = path.join(tmp.dir, 'agt.db');
    let store: SqliteStore;
    let runs: SqliteRunStore;
    {
      store = new SqliteStore({ path: file });
      await using service = new ResourceService({ store });
      await using runStore = new SqliteRunStore({ path: file });
      runs = runStore;
      await service.write({ kind: 'mcp', reference: 'tools/py', create: true, data: { mcpServers: { py: pythonConfig({ mark }) } } });
      await service.write({ kind: 'agent', reference: 'team/a', create: true, data: { mcps: ['tools/py'] } });
      await using run = await NativeRun.start({ agent: 'team/a', service, policy: policies.autoAllow('*') });
      await run.suspend({ store: runStore });
      expect(livingWithMarker(mark)).toHaveLength(1);
    }
    expect(livingWithMarker(mark)).toEqual([]);
    await expect(store.list('mcp')).rejects.toMatchObject({ code: 'store_unavailable', message: /was closed/ });
    await expect(runs.list()).rejects.toMatchObject({ code: 'store_unavailable', message: /was closed/ });
    tmp.cleanup();
  });
});
