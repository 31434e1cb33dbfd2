/**
 * One place for each bound and each rule: the time a caller gives
 * is checked by one rule, a handshake timeout has the same rule in a config
 * and in ConnectSettings (and `--timeout`), and one depth bound holds for
 * every JSON from outside.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { HANDSHAKE_MS_RULE, MAX_JSON_DEPTH, MAX_NAME_LENGTH, msProblem } from '../../src/bounds.js';
import { checkMs } from '../../src/check-ms.js';
import { isReference } from '../../src/resources/reference.js';
import { toolAlias } from '../../src/runtime/assembly/aliases.js';
import { MODEL_TOOL_NAME } from '../../src/tool-names.js';
import { McpPool, MemoryStore, ResourceService, resolveConnectSettings } from '../../src/index.js';
import { DEFAULT_LIMITS } from '../../src/runtime/limits.js';
import { failure, REPO_ROOT } from '../support/index.js';
import type { AgentData } from '../../src/index.js';

describe('one checker for a time, one rule for a handshake timeout', () => {
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

describe('every bound in bounds.ts', () => {
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

const SRC = path.join(REPO_ROOT, 'src');
const sources = (dir: string): string[] =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sources(full);
    return entry.name.endsWith('.ts') ? [path.relative(SRC, full).split(path.sep).join('/')] : [];
  });
const textOf = (file: string) => fs.readFileSync(path.join(SRC, file), 'utf8');

// `export const MAX_…`/`DEFAULT_…`/`MIN_…` outside bounds.ts, each with why it is not a bound of bounds.ts.
const CONSTANTS_ELSEWHERE: Record<string, string> = {
  'schema/compile/dialects.ts DEFAULT_DIALECT': 'a dialect name, not a number',
  'cli/context.ts DEFAULT_CATEGORY': 'a registry category name, not a number',
  'cli/context.ts DEFAULT_SKILL_CATEGORY': 'a registry category name, not a number',
  'secret-rule.ts MIN_SECRET_LENGTH': 'the one secret rule lives in secret-rule.ts (docs/concepts.md)',
  'runtime/limits.ts DEFAULT_LIMITS': "an object typed by RunLimits, built of bounds.ts's numbers (bounds.ts imports no type)",
  'mcp/settings/timeouts.ts DEFAULT_TIMEOUTS': "an object typed by Timeouts, built of bounds.ts's numbers",
  'authoring/serve/server.ts DEFAULT_CACHE_HINT': "an object typed by CacheHint, built of bounds.ts's number",
};

describe("the source's own bounds: one definition of each bound, small files", () => {
  it('bounds.ts imports nothing, so every file (errors.ts too) may import it without a circle', () => {
    expect(textOf('bounds.ts')).not.toMatch(/^import |\bfrom '|\bimport\(/m);
    expect(textOf('errors.ts')).toMatch(/^import \{[^}]*\bMAX_JSON_DEPTH\b[^}]*\} from '\.\/bounds\.js';$/m);
  });

  it('no MAX_, DEFAULT_ or MIN_ constant is exported outside bounds.ts but the listed ones, each for its reason', () => {
    const found = sources(SRC)
      .filter((file) => file !== 'bounds.ts')
      .flatMap((file) => [...textOf(file).matchAll(/^export const ((?:MAX|DEFAULT|MIN)_[A-Z0-9_]+)\b/gm)].map((m) => `${file} ${m[1]}`));
    expect(found.sort()).toEqual(Object.keys(CONSTANTS_ELSEWHERE).sort());
  });

  it('no source file is over 300 lines (a longer one is split by concept)', () => {
    const lines = (file: string) => textOf(file).split('\n').length - 1;
    expect(sources(SRC).filter((file) => lines(file) > 300)).toEqual([]);
  });
});
