/** Shared test helpers of runs: a registry with the Python fixture server registered, agents, batches. */
import path from 'node:path';
import { afterAll, afterEach } from 'vitest';
import { MemoryStore, NativeRun, type PermissionPolicy, policies, ResourceService, type ToolCall } from '../../src/index.js';
import { tempDir } from './paths.js';
import { fileLines, pythonConfig, readEvents } from './servers.js';

export { py } from './servers.js';

// Every registry's folder, removed when the file's tests are done (runFixture removes its own after each test).
const made: { cleanup(): void }[] = [];
afterAll(() => {
  for (const tmp of made.splice(0)) tmp.cleanup();
});

/**
 * A fresh registry: the Python server as `tools/py` (logging every call to `log`,
 * list requests and cancellations to `events`, with the given --feature flags).
 */
export async function setup(options: { mode?: string; features?: string[] } = {}) {
  const tmp = tempDir('agt-run-');
  made.push(tmp);
  const log = path.join(tmp.dir, 'calls.log');
  const events = path.join(tmp.dir, 'events.log');
  const store = new MemoryStore();
  const service = new ResourceService({ store });
  const extra = ['--log', log, '--events', events, ...(options.features ?? []).flatMap((f) => ['--feature', f])];
  await service.write({
    kind: 'mcp',
    reference: 'tools/py',
    create: true,
    data: { mcpServers: { py: pythonConfig({ mode: options.mode ?? 'normal', extra }) } },
  });
  await service.write({
    kind: 'mcp',
    reference: 'tools/other',
    create: true,
    data: { mcpServers: { other: pythonConfig({ extra: ['--name', 'other'] }) } },
  });
  const calls = (): { tool: string; arguments: unknown }[] => fileLines(log).map((l) => JSON.parse(l));
  return { tmp, log, events, store, service, calls, serverEvents: () => readEvents(events) };
}

let batchCounter = 0;
/** A batch of `calls` for `run`. */
export function batch(run: NativeRun, calls: ToolCall[]) {
  batchCounter += 1;
  return { runId: run.id, agent: run.agent, batchId: `b${batchCounter}`, calls };
}

type Env = Awaited<ReturnType<typeof setup>>;
type StartOptions = Omit<Parameters<typeof NativeRun.start>[0], 'agent' | 'service' | 'policy'> & { policy?: PermissionPolicy };

/**
 * One run per test of a file: `start()` sets up the registry (the Python server
 * as `tools/py` with `features`), writes agent `team/alice` mounting it (plus
 * `data`) and starts a run with auto-allow (or `options.policy`). The run is
 * closed and the registry removed after each test.
 */
export function runFixture(features: string[] = []) {
  const state: { env?: Env; run?: NativeRun } = {};
  afterEach(async () => {
    await state.run?.close();
    state.env?.tmp.cleanup();
    state.run = undefined;
    state.env = undefined;
  });
  return {
    /** The registry of the current test. */
    get env(): Env {
      if (state.env === undefined) throw new Error('start() first');
      return state.env;
    },
    /** Starts team/alice. */
    async start(options: StartOptions = {}, data: Record<string, unknown> = {}): Promise<NativeRun> {
      state.env = await setup({ features });
      await state.env.service.write({ kind: 'agent', reference: 'team/alice', create: true, data: { mcps: ['tools/py'], ...data } });
      state.run = await NativeRun.start({ agent: 'team/alice', service: state.env.service, policy: policies.autoAllow('*'), ...options });
      return state.run;
    },
    /** Cleans up a registry and run a test made itself. */
    adopt(env: Env, run?: NativeRun): void {
      state.env = env;
      state.run = run;
    },
  };
}
