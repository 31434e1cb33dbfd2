// SCRATCH leak probe
import path from 'node:path';
import { it } from 'vitest';
import { getEventListeners } from 'node:events';
import { MemoryStore, NativeRun, policies, ResourceService, toolAlias } from '../../src/index.js';
import { py, pythonConfig, REPO_ROOT } from '../support/index.js';
const SERVER = path.join(REPO_ROOT, 'test/mcp/fixtures/hostile-tasks.ts');
const hostile = (tool: string) => toolAlias('tools/hostile', tool);
const N = Number(process.env.N ?? 40);
for (const protocol of (process.env.ERAS ?? 'legacy,2026-07-28').split(','))
  for (const mode of ['wait', 'defer'] as const)
    it(`${protocol} ${mode}`, async () => {
      const registry = new ResourceService({ store: new MemoryStore() });
      const server = { command: process.execPath, args: ['--import', 'tsx', SERVER], cwd: REPO_ROOT, protocol };
      await registry.write({ kind: 'mcp', reference: 'tools/hostile', create: true, data: { mcpServers: { hostile: server } } });
      await registry.write({ kind: 'mcp', reference: 'tools/py', create: true, data: { mcpServers: { py: pythonConfig() } } });
      await registry.write({ kind: 'agent', reference: 'team/h', create: true, data: { mcps: ['tools/hostile', 'tools/py'] } });
      const runSignal = new AbortController();
      const run = await NativeRun.start({ agent: 'team/h', signal: runSignal.signal, service: registry, policy: policies.autoAllow('*'), tasks: mode,
        timeouts: { callMs: 1500, maxTotalMs: 1500 } } as never);
      const kinds = [
        { gets: ['{}'] }, // never ends
        { gets: ['{}'], cancel: 'silent' },
        { gets: ['error'] },
        { gets: ['silent'] },
        { gets: ['{"status":"completed"}'], notify: { count: 200, bytes: 2000 } },
        { create: '{"taskId":5}' },
        { gets: ['{"taskId":"zz","status":"completed"}'] },
        { gets: ['{"status":"completed"}'], deepContent: 200 },
      ];
      const base = { handles: process.getActiveResourcesInfo().length, rss: process.memoryUsage().rss };
      const snap = () => ({
        handles: process.getActiveResourcesInfo().length,
        info: Object.entries(process.getActiveResourcesInfo().reduce((m: any, k) => ((m[k] = (m[k] ?? 0) + 1), m), {})),
        heapMB: Math.round(process.memoryUsage().heapUsed / 1e6),
        abortListeners: getEventListeners(runSignal.signal, 'abort').length,
        listeners: process.eventNames().map((e) => `${String(e)}:${process.listenerCount(e)}`).join(','),
      });
      for (let i = 0; i < N; i++) {
        const calls = kinds.map((args, k) => ({ callId: `c${k}`, name: hostile('script'), arguments: args }));
        const ended = await run.executeBatch({ runId: run.id, agent: run.agent, batchId: `b${i}`, calls: [{ callId: 'echo', name: py('echo'), arguments: { message: 'x' } }, ...calls] });
        if (ended.results.find((r) => r.callId === 'echo')?.status !== 'ok') throw new Error('echo lost');
        if (mode === 'defer' && ended.pending?.length) {
          await run.collect(`b${i}`, { waitMs: 300 });
          for (const p of run.pendingApprovals(`b${i}`)) await run.cancel(`b${i}`, p.callId);
        }
        if (i === 4 || i === N - 1) { (globalThis as any).gc?.(); console.log(`### ${protocol} ${mode} after ${i + 1}:`, JSON.stringify(snap())); }
      }
      await run.close();
      await new Promise((r) => setTimeout(r, 3000));
      console.log(`### ${protocol} ${mode} closed:`, JSON.stringify(snap()), 'base', base.handles);
    }, 600_000);
