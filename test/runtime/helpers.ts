/** Helpers of the runtime tests: a registry with the Python fixture server registered and agents. */
import fs from 'node:fs';
import path from 'node:path';
import { MemoryStore, type NativeRun, ResourceService, toolAlias, type ToolCall } from '../../src/index.js';
import { pythonConfig, readEvents } from '../mcp/helpers.js';
import { tempDir } from '../service/helpers.js';

/**
 * A fresh registry: the Python server as `tools/py` (logging every call to `log`,
 * list requests and cancellations to `events`, with the given --feature flags).
 */
export async function setup(options: { mode?: string; features?: string[] } = {}) {
  const tmp = tempDir('agt-run-');
  const log = path.join(tmp.dir, 'calls.log');
  const events = path.join(tmp.dir, 'events.log');
  const store = new MemoryStore();
  const service = new ResourceService({ store });
  const extra = ['--log', log, '--events', events, ...(options.features ?? []).flatMap((f) => ['--feature', f])];
  await service.write({ kind: 'mcp', reference: 'tools/py', create: true, data: { mcpServers: { py: pythonConfig({ mode: options.mode ?? 'normal', extra }) } } });
  await service.write({ kind: 'mcp', reference: 'tools/other', create: true, data: { mcpServers: { other: pythonConfig({ extra: ['--name', 'other'] }) } } });
  const calls = (): { tool: string; arguments: unknown }[] =>
    fs.existsSync(log) ? fs.readFileSync(log, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l)) : [];
  return { tmp, log, events, store, service, calls, serverEvents: () => readEvents(events) };
}

/** The alias of a Python-server tool mounted as `tools/py`. */
export const py = (tool: string) => toolAlias('tools/py', tool);

let batchCounter = 0;
/** A batch of `calls` for `run`. */
export function batch(run: NativeRun, calls: ToolCall[]) {
  batchCounter += 1;
  return { runId: run.id, agent: run.agent, batchId: `b${batchCounter}`, calls };
}
