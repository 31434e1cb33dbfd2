/**
 * McpPool's options are checked like a run's: an unknown key (nested ones
 * too: `breaker.coolDownMS`, `timeouts.callMS`) is invalid_input naming the
 * closest known key; `strict: false` makes it a warning every pooled
 * connection carries; inherited options are refused. A real Python server
 * where a connection is leased.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { McpPool, MemoryStore, NativeRun, policies, ResourceService } from '../../src/index.js';
import type { McpDocument } from '../../src/config/mcp-config.js';
import { pythonConfig } from '../support/index.js';

const pools: McpPool[] = [];
afterEach(async () => {
  for (const p of pools.splice(0)) await p.close();
});

const service = new ResourceService({ store: new MemoryStore() });

describe('McpPool options', () => {
  it.each([
    [{ idleMS: 5 }, 'idleMS', 'idleMs'],
    [{ breaker: { coolDownMS: 5 } }, 'breaker.coolDownMS', 'breaker.coolDownMs'],
    [{ timeouts: { callMS: 5 } }, 'timeouts.callMS', 'timeouts.callMs'],
    [{ maxConnection: 5 }, 'maxConnection', 'maxConnections'],
  ])('a misspelled pool option (%o) is invalid_input naming %s and the closest, %s', (bad, key, closest) => {
    expect(() => new McpPool({ service, ...bad } as never)).toThrow(
      expect.objectContaining({
        code: 'invalid_input',
        message: expect.stringContaining(`McpPool options: unknown key "${key}"`),
        details: { key, closest },
      }),
    );
  });

  it("a run's server-request handler given to the pool is unknown there (each run brings its own)", () => {
    expect(() => new McpPool({ service, sampling: async () => ({}) } as never)).toThrow(
      expect.objectContaining({ code: 'invalid_input', details: expect.objectContaining({ key: 'sampling' }) }),
    );
  });

  it('an inherited pool option (Object.create) is refused naming it, strict or not', () => {
    const options = Object.assign(Object.create({ idleMs: 5 }) as object, { service, strict: false });
    expect(() => new McpPool(options as never)).toThrow(
      expect.objectContaining({ code: 'invalid_input', details: { key: 'idleMs', reason: 'inherited_key' } }),
    );
  });

  it('with strict: false the pool starts, and a leased connection carries one warning per unknown key', async () => {
    const pool = new McpPool({ service, strict: false, breaker: { coolDownMS: 5 } } as never);
    pools.push(pool);
    const document = { mcpServers: { py: pythonConfig() } } as McpDocument;
    const lease = await pool.lease({
      reference: 'tools/py',
      revision: 1,
      document,
      scope: 's',
      owner: 'o',
      connect: {},
      busy: () => false,
    });
    expect(lease.connection.warnings.filter((w) => w.startsWith('McpPool options'))).toEqual([
      'McpPool options: unknown key "breaker.coolDownMS"; did you mean "breaker.coolDownMs"? (ignored: strict is false)',
    ]);
    await lease.release();
  });

  it("a pooled run with strict: false and a misspelled nested option starts: the pool's layering does not refuse what the run ignored", async () => {
    const runs = new ResourceService({ store: new MemoryStore() });
    await runs.write({ kind: 'mcp', reference: 'tools/py', create: true, data: { mcpServers: { py: pythonConfig() } } });
    await runs.write({ kind: 'agent', reference: 'team/alice', create: true, data: { mcps: ['tools/py'] } });
    const pool = new McpPool({ service: runs });
    pools.push(pool);
    const options = { agent: 'team/alice', service: runs, policy: policies.autoAllow('*'), pool, strict: false, timeouts: { callMS: 5 } };
    const run = await NativeRun.start(options as never);
    try {
      expect(run.notices[0]).toMatch(/^NativeRun options: unknown key "timeouts\.callMS"; did you mean "timeouts\.callMs"\?/);
      expect(run.tools().length).toBeGreaterThan(0);
    } finally {
      await run.close();
    }
  });
});
