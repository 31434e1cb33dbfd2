// SCRATCH probe (deleted before the report).
import path from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { MemoryStore, NativeRun, policies, ResourceService, toolAlias } from '../../src/index.js';
import { py, pythonConfig, REPO_ROOT } from '../support/index.js';

const SERVER = path.join(REPO_ROOT, 'test/mcp/fixtures/hostile-tasks.ts');
const hostile = (tool: string) => toolAlias('tools/hostile', tool);
const echo = { callId: 'echo', name: py('echo'), arguments: { message: 'kept' } };
const CASES: Record<string, Record<string, unknown>> = JSON.parse(process.env.CASES_FILE ? (await import('node:fs')).readFileSync(process.env.CASES_FILE, 'utf8') : (process.env.CASES ?? '{}'));
const ERAS = (process.env.ERAS ?? 'legacy,2026-07-28').split(',');
const MODES = (process.env.MODES ?? 'wait,defer').split(',');
const short = (v: unknown) => JSON.stringify(v)?.slice(0, 400);
const sum = (r: any) => r && { s: r.status, code: r.error?.code, reason: r.error?.details?.reason, msg: r.error?.message?.slice(0, 200) };

for (const protocol of ERAS) {
  describe(protocol, () => {
    let registry: ResourceService;
    beforeAll(async () => {
      registry = new ResourceService({ store: new MemoryStore() });
      const server = { command: process.execPath, args: ['--import', 'tsx', SERVER], cwd: REPO_ROOT, protocol };
      await registry.write({ kind: 'mcp', reference: 'tools/hostile', create: true, data: { mcpServers: { hostile: server } } });
      await registry.write({ kind: 'mcp', reference: 'tools/py', create: true, data: { mcpServers: { py: pythonConfig() } } });
      await registry.write({ kind: 'agent', reference: 'team/h', create: true, data: { mcps: ['tools/hostile', 'tools/py'] } });
    });
    for (const [name, args] of Object.entries(CASES))
      for (const mode of MODES)
        it(`${name} ${mode}`, async () => {
          const run = await NativeRun.start({
            agent: 'team/h',
            service: registry,
            policy: policies.autoAllow('*'),
            tasks: mode as 'wait' | 'defer',
            ...(process.env.ELICIT === 'defer' ? { elicitation: 'defer' } : process.env.ELICIT === 'inline' ? { elicitation: async () => ({ action: 'accept', content: {} }) } : {}),
            timeouts: { callMs: Number(process.env.CALL_MS ?? 4000), maxTotalMs: Number(process.env.TOTAL_MS ?? 8000) },
          } as never);
          const t0 = performance.now();
          const out: any = {};
          try {
            const ended = await run.executeBatch({
              runId: run.id,
              agent: run.agent,
              batchId: 'b1',
              calls: [echo, { callId: 'h', name: hostile('script'), arguments: args }],
            });
            out.echo = sum(ended.results.find((r) => r.callId === 'echo'));
            out.h = sum(ended.results.find((r) => r.callId === 'h'));
            out.pending = ended.pending?.map((p) => ({ w: p.waitingFor, task: p.task, exp: p.expiresAt }));
            if (process.env.CANCEL && ended.pending?.length) {
              const t1 = performance.now();
              const c = await run.cancel('b1', 'h');
              out.cancelled = { r: c.results.map(sum), ms: Math.round(performance.now() - t1) };
            } else if (mode === 'defer' && ended.pending?.length) {
              const c = await run.collect('b1', { waitMs: Number(process.env.WAIT_MS ?? 3000) });
              out.collected = c.results.map(sum);
              out.stillPending = c.pending?.map((p) => ({ w: p.waitingFor, task: p.task }));
            }
          } catch (e: any) {
            out.REJECTED = { name: e?.name, code: e?.code, msg: String(e?.message).slice(0, 300) };
          }
          out.ms = Math.round(performance.now() - t0);
          out.handles = process.getActiveResourcesInfo().length;
          out.mem = Math.round(process.memoryUsage().rss / 1e6);
          await run.close();
          console.log(`### ${protocol} ${name} ${mode}: ${short(out)}`);
        }, 120_000);
  });
}
