/**
 * One resolved connect policy: ConnectSettings resolved once
 * into one frozen value that connectMcp, McpProber, NativeRun, McpPool and the
 * CLI sessions take; one secret rule (one length threshold, one scheme rule)
 * for everything a server sends back, the stderr tail included (P2, R7).
 */
import { describe, expect, it } from 'vitest';
import { type AgtError, connectMcp, DEFAULT_TIMEOUTS, McpProber, resolveConnectSettings } from '../../../src/index.js';
import { schemeToken, secretArgIndexes, secretMasker } from '../../../src/config/secrets.js';
import { isSecretName, maskSecretText } from '../../../src/secret-rule.js';
import { redactCause } from '../../../src/errors.js';
import { pythonConfig } from '../../support/index.js';

async function failure(work: unknown): Promise<AgtError> {
  try {
    await (typeof work === 'function' ? (work as () => unknown)() : work);
  } catch (error) {
    return error as AgtError;
  }
  throw new Error('expected a failure');
}

describe('P2: connect settings are resolved once into one frozen value', () => {
  it('P2: every timeout (the call timeout among them), the message bound, handlers and their capabilities are filled in and frozen', () => {
    const roots = [{ uri: 'file:///work', name: 'work' }];
    const settings = resolveConnectSettings({ timeouts: { callMs: 1234 }, roots, elicitation: async () => ({ action: 'cancel' }) });
    expect(settings.timeouts).toEqual({ ...DEFAULT_TIMEOUTS, callMs: 1234 });
    expect(settings.maxMessageBytes).toBe(4 * 1024 * 1024);
    expect(settings.tasks).toBe('wait'); // E6: tasks are waited for inline unless a host says otherwise
    expect(settings.legacyVerdictMs).toBe(24 * 60 * 60 * 1000);
    expect(settings.capabilities).toEqual({ elicitation: { form: { applyDefaults: true } }, roots: { listChanged: true } });
    for (const part of [settings, settings.timeouts, settings.handlers, settings.capabilities, settings.given])
      expect(Object.isFrozen(part)).toBe(true);
    roots[0]!.uri = 'file:///elsewhere'; // the host's list changing later changes nothing resolved
    expect(Object.isFrozen(settings)).toBe(true);
  });

  it('P2: a bad value fails when resolving, naming its field', async () => {
    for (const [given, field] of [
      [{ timeouts: { handshakeMs: -1 } }, 'timeouts.handshakeMs'],
      [{ maxMessageBytes: 10 }, 'maxMessageBytes'],
      [{ legacyVerdictMs: 0.5 }, 'legacyVerdictMs'],
      [{ roots: [{ uri: 'https://x' }] }, 'roots[0].uri'],
    ] as const) {
      const f = await failure(() => resolveConnectSettings(given as never));
      expect(f.code, field).toBe('invalid_input');
      expect(f.details?.field).toBe(field);
    }
  });

  it('P2: layered settings keep the base and replace only what the layer gives', () => {
    const base = resolveConnectSettings({ timeouts: { callMs: 5000 }, maxMessageBytes: 2048, tasks: 'defer' });
    const probe = resolveConnectSettings({ timeouts: { listMs: 700 } }, base);
    expect(probe.timeouts).toMatchObject({ callMs: 5000, listMs: 700 });
    expect(probe.maxMessageBytes).toBe(2048);
    expect(probe.tasks).toBe('defer');
    expect(base.timeouts.listMs).toBe(DEFAULT_TIMEOUTS.listMs);
  });

  it('P2: connectMcp and McpProber take resolved settings; settings beside them are invalid_input before anything starts', async () => {
    const settings = resolveConnectSettings({ timeouts: { handshakeMs: 20_000 } });
    const connection = await connectMcp(pythonConfig(), { settings });
    try {
      expect((await connection.listTools()).some((t) => t.name === 'echo')).toBe(true);
    } finally {
      await connection.close();
    }
    const report = await new McpProber({ settings }).probe({ mcpServers: { s: pythonConfig() } });
    expect(report.tools.length).toBeGreaterThan(0);
    const f = await failure(connectMcp({ command: '/nonexistent/never-started', cwd: '/' }, { settings, maxMessageBytes: 4096 }));
    expect(f.code).toBe('invalid_input');
    expect(f.details).toEqual({ field: 'maxMessageBytes' });
    expect(() => new McpProber({ settings, tasks: true })).toThrow(/not both \("tasks" is set beside settings\)/);
    const forged = await failure(connectMcp(pythonConfig(), { settings: { ...settings } }));
    expect(forged.details).toEqual({ field: 'settings' });
  });
});

describe('R7: one secret rule for everything a server sends back', () => {
  it('R7: one length threshold and one scheme rule', () => {
    const masker = secretMasker(['abcde', 'abcdef', 'ApiKey k3y-v4lue', 'Bearer tok', 'plain-words here-too']);
    expect(masker.secrets).toContain('abcdef');
    expect(masker.secrets).not.toContain('abcde'); // under MIN_SECRET_LENGTH: ordinary words stay readable
    expect(masker.secrets).toContain('k3y-v4lue'); // the token of any "Scheme token" value, alone
    expect(masker.secrets).not.toContain('tok');
    expect(masker.text('a abcdef and k3y-v4lue')).toBe('a *** and ***');
    expect(schemeToken('Basic dXNlcjpwYXNz')).toBe('dXNlcjpwYXNz');
    expect(schemeToken('no-token-here')).toBeUndefined();
    expect(schemeToken('three parts here')).toBeUndefined();
  });

  it('R7: one list of secret names for launch displays and error text: flags, parameters and OAuth codes alike', () => {
    for (const name of [
      'token',
      'api-key',
      'api_key',
      'apikey',
      'client-secret',
      'client_secret',
      'access_token',
      'password',
      'passwd',
      'credentials',
      'code',
    ])
      expect(isSecretName(name), name).toBe(true);
    for (const name of ['tokens', 'status_code', 'verbose', 'secretary', 'port']) expect(isSecretName(name), name).toBe(false);
    const args = ['--client-secret', 'cs-value', '--api_key=ak-value', '--port', '8080', '--status_code', '500'];
    expect(secretArgIndexes(args)).toEqual([1, 2]);
    expect(maskSecretText('GET /cb?code=abc&state=s client_secret=xyz status_code=500 x-api-key=k1 DPoP eyJhbGc')).toBe(
      'GET /cb?code=***&state=s client_secret=*** status_code=500 x-api-key=*** DPoP ***',
    );
    // The same rule reaches an error's cause: what an SDK or a server wrote is redacted before it is kept.
    const redacted = redactCause(new Error('token endpoint said: refresh_token=rt-1234 Bearer at-5678')) as Error;
    expect(redacted.message).toBe('token endpoint said: refresh_token=*** Bearer ***');
  });

  it('R7: the stderr tail and a tool result mask the same values: 6 characters and more, never shorter ones', async () => {
    const env = { LONG_SECRET: 'sekret-value-77', SHORT_VALUE: 'abcde' };
    const server = pythonConfig({
      mode: 'leak-env',
      extra: ['--feature', 'hostile', '--leak', 'LONG_SECRET', '--leak', 'SHORT_VALUE'],
      env,
    });
    const report = await new McpProber({ timeouts: { handshakeMs: 20_000 } }).probe({ mcpServers: { s: server } });
    expect(report.stderrTail).toContain('LONG_SECRET=***');
    expect(report.stderrTail).toContain('SHORT_VALUE=abcde');
    expect(report.stderrTail).not.toContain('sekret-value-77');
    const connection = await connectMcp(server, { timeouts: { handshakeMs: 20_000 } });
    try {
      const result = await connection.callTool('leak', {});
      expect(JSON.stringify(result)).not.toContain('sekret-value-77');
      expect(JSON.stringify(result)).toContain('*** abcde');
    } finally {
      await connection.close();
    }
  });
});

describe('P2: unknown connect settings', () => {
  it('P2: a misspelled ConnectSettings key is invalid_input naming it and the closest key; strict: false accepts it with a warning', () => {
    expect(() => resolveConnectSettings({ timeout: { callMs: 5 } } as never)).toThrow(
      expect.objectContaining({ code: 'invalid_input', details: { key: 'timeout', closest: 'timeouts' } }),
    );
    const settings = resolveConnectSettings({ strict: false, pingIntervalMS: 5 } as never);
    expect(settings.warnings).toEqual([
      'ConnectSettings: unknown key "pingIntervalMS"; did you mean "pingIntervalMs"? (ignored: strict is false)',
    ]);
    expect(settings.pingIntervalMs).toBeUndefined();
    expect(() => resolveConnectSettings({ strict: 'no' } as never)).toThrow(expect.objectContaining({ details: { field: 'strict' } }));
  });
});

describe('P2: connectMcp and McpProber check their options like ConnectSettings', () => {
  // A command that cannot start: a spawn would fail with spawn_failed, so invalid_input shows nothing was started.
  const unstartable = { command: '/nonexistent/agt-test-server', args: [], cwd: '/' };

  it('P2: connectMcp refuses a misspelled option, nested ones too, before anything starts', async () => {
    const top = await failure(connectMcp(unstartable, { timeout: { callMs: 5 } } as never));
    expect(top).toMatchObject({ code: 'invalid_input', details: { key: 'timeout', closest: 'timeouts' } });
    expect(top.message).toMatch(/^connectMcp options: unknown key "timeout"/);
    const nested = await failure(connectMcp(unstartable, { timeouts: { callMS: 5 } } as never));
    expect(nested).toMatchObject({ code: 'invalid_input', details: { key: 'timeouts.callMS', closest: 'timeouts.callMs' } });
    const beside = await failure(connectMcp(unstartable, { settings: resolveConnectSettings(), revison: 2 } as never));
    expect(beside).toMatchObject({ code: 'invalid_input', details: { key: 'revison', closest: 'revision' } });
    const inherited = await failure(connectMcp(unstartable, Object.create({ timeouts: { callMs: 5 } }) as never));
    expect(inherited).toMatchObject({ code: 'invalid_input', details: { key: 'timeouts', reason: 'inherited_key' } });
  });

  it('P2: connectMcp with strict: false connects, and the connection warns of each unknown option', async () => {
    const connection = await connectMcp(pythonConfig(), { strict: false, timeouts: { callMS: 5 }, revison: 2 } as never);
    try {
      expect(connection.warnings.filter((w) => w.startsWith('connectMcp options'))).toEqual([
        'connectMcp options: unknown key "timeouts.callMS"; did you mean "timeouts.callMs"? (ignored: strict is false)',
        'connectMcp options: unknown key "revison"; did you mean "revision"? (ignored: strict is false)',
      ]);
    } finally {
      await connection.close();
    }
  });

  it("P2: McpProber refuses a misspelled option in its constructor, and a probe's own options before anything starts", async () => {
    expect(() => new McpProber({ timeouts: { handshakeMS: 5 } } as never)).toThrow(
      expect.objectContaining({ code: 'invalid_input', details: { key: 'timeouts.handshakeMS', closest: 'timeouts.handshakeMs' } }),
    );
    expect(() => new McpProber({ revealSecret: true } as never)).toThrow(
      expect.objectContaining({ details: { key: 'revealSecret', closest: 'revealSecrets' } }),
    );
    const document = { mcpServers: { x: unstartable } };
    const probe = await failure(new McpProber().probe(document, { timeout: {} } as never));
    expect(probe).toMatchObject({ code: 'invalid_input', details: { key: 'timeout', closest: 'timeouts' } });
    const nested = await failure(new McpProber().probe(document, { timeouts: { listMS: 5 } } as never));
    expect(nested).toMatchObject({ code: 'invalid_input', details: { key: 'timeouts.listMS', closest: 'timeouts.listMs' } });
  });

  it("P2: a prober with strict: false probes, and its report warns of each unknown option, the probe's own included", async () => {
    const prober = new McpProber({ strict: false, timeouts: { callMS: 5 } } as never);
    const report = await prober.probe({ mcpServers: { py: pythonConfig() } }, { timeouts: { listMS: 5 }, onPhas: 1 } as never);
    expect(report.ok).toBe(true);
    expect(report.warnings.filter((w) => / unknown key /.test(w))).toEqual([
      'McpProber options: unknown key "timeouts.callMS"; did you mean "timeouts.callMs"? (ignored: strict is false)',
      'ConnectSettings: unknown key "timeouts.listMS"; did you mean "timeouts.listMs"? (ignored: strict is false)',
      'McpProber.probe options: unknown key "onPhas"; did you mean "onPhase"? (ignored: strict is false)',
    ]);
  });
});
