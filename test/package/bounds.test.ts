/**
 * One place for each bound and each rule (issue 37): the time a caller gives
 * is checked by one rule, a handshake timeout has the same rule in a config
 * and in ConnectSettings (and `--timeout`), and one depth bound holds for
 * every JSON from outside.
 */
import { describe, expect, it } from 'vitest';
import { checkMs, HANDSHAKE_MS_RULE, MAX_JSON_DEPTH, MAX_NAME_LENGTH, msProblem } from '../../src/bounds.js';
import { isReference } from '../../src/resources/reference.js';
import { toolAlias } from '../../src/runtime/aliases.js';
import { MODEL_TOOL_NAME } from '../../src/tool-names.js';
import { McpPool, MemoryStore, ResourceService, resolveConnectSettings } from '../../src/index.js';
import { DEFAULT_LIMITS } from '../../src/runtime/limits.js';
import { failure } from '../support/index.js';
import type { AgentData } from '../../src/index.js';

describe('issue 37: one checker for a time, one rule for a handshake timeout', () => {
  it('P2: a time is a finite number of milliseconds above 0 (or its rule); the error names the field and says what fits', () => {
    expect(() => checkMs(undefined, 'x')).not.toThrow(); // the default applies
    expect(() => checkMs(0.5, 'x')).not.toThrow();
    for (const bad of [0, -1, Number.NaN, Number.POSITIVE_INFINITY, '100', null]) {
      expect(() => checkMs(bad, 'approvalTtlMs'), String(bad)).toThrow('approvalTtlMs must be a positive number of milliseconds');
    }
    expect(msProblem(99, { whole: true, min: 100 })).toBe('must be a whole number of milliseconds, at least 100');
    expect(msProblem(100.5, { whole: true })).toBe('must be a positive whole number of milliseconds');
    expect(msProblem(600_001, HANDSHAKE_MS_RULE)).toBe('must be a whole number of milliseconds between 1 and 600000');
  });

  it('P2: the same handshake timeout is refused alike in a config, in ConnectSettings and by the pool', async () => {
    const service = new ResourceService({ store: new MemoryStore() });
    for (const bad of [600_001, 1.5, 0]) {
      const written = await failure(
        service.write({
          kind: 'mcp',
          reference: `tools/h${String(bad).replace('.', '-')}`,
          create: true,
          data: { mcpServers: { s: { url: 'http://127.0.0.1:1/mcp', handshakeTimeoutMs: bad } } },
        }),
      );
      expect(written.message, String(bad)).toContain('handshakeTimeoutMs: must be a whole number of milliseconds between 1 and 600000');
      const settings = await failure((async () => resolveConnectSettings({ timeouts: { handshakeMs: bad } }))());
      expect(settings.message).toBe('timeouts.handshakeMs must be a whole number of milliseconds between 1 and 600000');
      expect(settings.details).toEqual({ field: 'timeouts.handshakeMs' });
      const pool = await failure((async () => new McpPool({ service, timeouts: { handshakeMs: bad } }))());
      expect(pool.message).toBe(settings.message);
    }
    const idle = await failure((async () => new McpPool({ service, idleMs: 2.5 }))());
    expect(idle.message).toBe('idleMs must be a positive whole number of milliseconds');
  });

  it('B4: one depth bound for JSON from outside: arguments default to it, documents and results are held to it', async () => {
    expect(DEFAULT_LIMITS.maxArgumentDepth).toBe(MAX_JSON_DEPTH);
    let deep: unknown = 'leaf';
    for (let i = 0; i < MAX_JSON_DEPTH + 1; i++) deep = { d: deep };
    const service = new ResourceService({ store: new MemoryStore() });
    const f = await failure(
      service.write({ kind: 'agent', reference: 'team/deep', create: true, data: { mcps: [], note: deep } as AgentData }),
    );
    expect(f.details).toMatchObject({ reason: 'too_deep', limit: MAX_JSON_DEPTH });
  });
});

describe('issue 48: every bound in bounds.ts', () => {
  it('P2: one name length for what a model sees and what names a registry entry: an alias, a reference part and a server name all stop at MAX_NAME_LENGTH', async () => {
    const longest = 'a'.repeat(MAX_NAME_LENGTH);
    expect(MODEL_TOOL_NAME.test(longest)).toBe(true);
    expect(MODEL_TOOL_NAME.test(`${longest}a`)).toBe(false);
    expect(isReference(`tools/${longest}`)).toBe(true);
    expect(isReference(`tools/${longest}a`)).toBe(false);
    const service = new ResourceService({ store: new MemoryStore() });
    const write = (name: string) =>
      service.write({
        kind: 'mcp',
        reference: 'tools/named',
        create: true,
        data: { mcpServers: { [name]: { command: 'node', cwd: '/' } } },
      });
    const refused = await failure(write(`${longest}a`));
    expect(refused).toMatchObject({ code: 'invalid_input' });
    expect(refused.message).toContain(`1-${MAX_NAME_LENGTH} letters`);
    await expect(write(longest)).resolves.toMatchObject({ warnings: expect.any(Array) });
    // A lossless alias is readable only within the bound; past it the hashed form (still within it) is used.
    expect(toolAlias('tools/x', 'a'.repeat(MAX_NAME_LENGTH - 'tools__x__'.length)).length).toBe(MAX_NAME_LENGTH);
    expect(toolAlias('tools/x', 'a'.repeat(MAX_NAME_LENGTH)).length).toBeLessThanOrEqual(MAX_NAME_LENGTH);
    expect(toolAlias('tools/x', 'a'.repeat(MAX_NAME_LENGTH))).not.toContain('__');
  });
});
