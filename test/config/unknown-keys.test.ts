/**
 * Unknown keys of options objects, nested option objects included: the path
 * of the key and of the closest known one, warnings with strict: false, and
 * inherited options (Object.create(base)) refused whatever strict says.
 */
import { describe, expect, it } from 'vitest';
import { checkKnownKeys, type KnownKeys, unknownKeys } from '../../src/config/unknown-keys.js';
import { resolveConnectSettings } from '../../src/index.js';
import { normaliseMcpDocument } from '../../src/config/mcp-config.js';

const KNOWN: KnownKeys = {
  keys: ['timeouts', 'limits', 'items', 'strict'],
  nested: {
    timeouts: { keys: ['callMs', 'listMs'] },
    limits: { keys: ['maxBatchCalls'] },
    items: { keys: ['name', 'handler'], readsInherited: true },
  },
};

describe('nested option objects', () => {
  it('an unknown key of a nested object is invalid_input naming its path and the closest known key by the same path', () => {
    expect(() => checkKnownKeys({ timeouts: { callMS: 5 } }, KNOWN, 'options', true)).toThrow(
      expect.objectContaining({
        code: 'invalid_input',
        message: expect.stringMatching(/^options: unknown key "timeouts\.callMS"; did you mean "timeouts\.callMs"\? \(give strict: false/),
        details: { key: 'timeouts.callMS', closest: 'timeouts.callMs' },
      }),
    );
    expect(() => checkKnownKeys({ limits: { maxBatchCall: 5 } }, KNOWN, 'options', true)).toThrow(
      expect.objectContaining({ details: { key: 'limits.maxBatchCall', closest: 'limits.maxBatchCalls' } }),
    );
  });

  it('each object of a listed option is checked, named by its index', () => {
    const items = [{ name: 'a' }, { name: 'b', handlr: () => 1 }];
    expect(() => checkKnownKeys({ items }, KNOWN, 'options', true)).toThrow(
      expect.objectContaining({ details: { key: 'items[1].handlr', closest: 'items[1].handler' } }),
    );
  });

  it('with strict: false every unknown key, nested ones too, is one warning; known values are not looked into', () => {
    const warnings = checkKnownKeys({ strict: false, timout: 1, timeouts: { callMS: 1, listMs: 2 }, limits: 'x' }, KNOWN, 'options', false);
    expect(warnings).toEqual([
      'options: unknown key "timout"; did you mean "timeouts"? (ignored: strict is false)',
      'options: unknown key "timeouts.callMS"; did you mean "timeouts.callMs"? (ignored: strict is false)',
    ]);
  });

  it('a nested key is escaped and bounded like a top-level one; the path is not', () => {
    const [found] = unknownKeys({ timeouts: { ['x\u001b[2J' + 'y'.repeat(200)]: 1 } }, KNOWN, 'options');
    expect(found?.key).toBe(`timeouts.x\\x1b[2J${'y'.repeat(59)}…`); // 64 characters of the key, then …
    expect(found?.message).not.toContain('\u001b');
  });

  it('the refusal offers what the caller says instead of strict: false', () => {
    expect(() => checkKnownKeys({ mcp: [] }, ['mcps'], 'agent data', true, 'no such field')).toThrow(
      /^agent data: unknown key "mcp"; did you mean "mcps"\? \(no such field\)$/,
    );
  });
});

describe('inherited options', () => {
  it('a known key an options object inherits (Object.create(base)) is invalid_input, strict or not: a spread would drop it', () => {
    const options = Object.create({ timeouts: { callMs: 5 } }) as Record<string, unknown>;
    options.strict = false;
    expect(() => checkKnownKeys(options, KNOWN, 'options', false)).toThrow(
      expect.objectContaining({
        code: 'invalid_input',
        message: expect.stringContaining('"timeouts" is inherited'),
        details: { key: 'timeouts', reason: 'inherited_key' },
      }),
    );
    const nested = { timeouts: Object.create({ callMs: 5 }) as object };
    expect(() => checkKnownKeys(nested, KNOWN, 'options', true)).toThrow(
      expect.objectContaining({ details: { key: 'timeouts.callMs', reason: 'inherited_key' } }),
    );
  });

  it("a class instance's accessor of a known option is inherited too; its own keys and unrelated methods are fine", () => {
    class Options {
      strict = true;
      get timeouts() {
        return { callMs: 5 };
      }
    }
    expect(() => checkKnownKeys(new Options(), KNOWN, 'options', true)).toThrow(
      expect.objectContaining({ details: { key: 'timeouts', reason: 'inherited_key' } }),
    );
    class Plain {
      strict = true;
      describe() {
        return 'x';
      }
    }
    expect(checkKnownKeys(new Plain(), KNOWN, 'options', true)).toEqual([]);
  });

  it('an object read key by key (readsInherited) may inherit: a class whose handler is a method', () => {
    class Item {
      name = 'a';
      handler() {
        return 1;
      }
    }
    expect(checkKnownKeys({ items: [new Item()] }, KNOWN, 'options', true)).toEqual([]);
  });

  it('an own key shadowing an inherited one is own', () => {
    const options = Object.create({ timeouts: {} }) as Record<string, unknown>;
    options.timeouts = { callMs: 1 };
    expect(checkKnownKeys(options, KNOWN, 'options', true)).toEqual([]);
  });
});

describe('ConnectSettings nested objects', () => {
  it('P2: timeouts.callMS and variables.input are refused naming the closest; strict: false makes them warnings', () => {
    expect(() => resolveConnectSettings({ timeouts: { callMS: 5 } } as never)).toThrow(
      expect.objectContaining({ code: 'invalid_input', details: { key: 'timeouts.callMS', closest: 'timeouts.callMs' } }),
    );
    expect(() => resolveConnectSettings({ variables: { input: {} } } as never)).toThrow(
      expect.objectContaining({ details: { key: 'variables.input', closest: 'variables.inputs' } }),
    );
    const settings = resolveConnectSettings({ strict: false, timeouts: { callMS: 5, listMs: 700 } } as never);
    expect(settings.warnings).toEqual([
      'ConnectSettings: unknown key "timeouts.callMS"; did you mean "timeouts.callMs"? (ignored: strict is false)',
    ]);
    expect(settings.timeouts.listMs).toBe(700);
  });

  it('P2: a nested key accepted unknown is left out of the settings as given, so layering them (a pool under a run) checks clean', () => {
    const settings = resolveConnectSettings({ strict: false, timeouts: { callMS: 'x', listMs: 700 }, variables: { input: {} } } as never);
    expect(settings.given.timeouts).toEqual({ listMs: 700 });
    expect(settings.given.variables).toEqual({});
    expect(resolveConnectSettings(settings.given, settings).timeouts.listMs).toBe(700);
  });

  it('P2: inherited settings (Object.create) are refused, never half read', () => {
    expect(() => resolveConnectSettings(Object.create({ timeouts: { callMs: 5 } }) as never)).toThrow(
      expect.objectContaining({ details: { key: 'timeouts', reason: 'inherited_key' } }),
    );
  });
});

describe('keys kept as is in mcp and skill data', () => {
  it('R2: an unknown key of an mcp document or a server config is warned about escaped and cut to 64 characters', () => {
    const key = `x\u001b[2J${'k'.repeat(5_000)}`;
    const { warnings } = normaliseMcpDocument({ [key]: 1, mcpServers: { s: { url: 'https://example.com/mcp', [key]: 2 } } });
    expect(warnings).toHaveLength(2);
    for (const w of warnings) {
      expect(w).toContain('"x\\x1b[2J');
      expect(w).not.toContain('\u001b');
      expect(w.length).toBeLessThan(200);
    }
  });
});
