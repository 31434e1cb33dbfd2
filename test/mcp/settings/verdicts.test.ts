/**
 * E2: what a probe learns of a server's era is remembered beside the registry
 * (an EraVerdictStore, never the resource) and lets runs, pools and CLI calls
 * skip discovery; another revision, or a legacy verdict past its bound, is
 * learned again.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  connectMcp,
  McpPool,
  McpProber,
  MemoryStore,
  MemoryVerdictStore,
  NativeRun,
  policies,
  ResourceService,
  toolAlias,
} from '../../../src/index.js';
import { type EraVerdict } from '../../../src/adapters.js';
import { usableVerdict } from '../../../src/mcp/settings/verdicts.js';
import { notesVerdictStore, readProbeNotes, writeProbeNote } from '../../../src/cli/store-files/probe-notes.js';
import { batch, failure, FIXTURES, pythonConfig, runAgt, tempDir } from '../../support/index.js';
import { startV2Http, type V2HttpServer } from '../fixtures/v2-server.js';

let server: V2HttpServer;
const tmp = tempDir('agt-verdicts-');
beforeAll(async () => {
  server = await startV2Http({ legacy: 'reject' });
});
afterAll(async () => {
  await server.close();
  tmp.cleanup();
});
const discovers = () => server.methods.filter((m) => m === 'server/discover').length;

async function registry() {
  const service = new ResourceService({ store: new MemoryStore() });
  await service.write({ kind: 'mcp', reference: 'tools/v2', create: true, data: { mcpServers: { v2: { url: server.url } } } });
  await service.write({ kind: 'agent', reference: 'team/e2', create: true, data: { mcps: ['tools/v2'] } });
  return service;
}

describe('E2: verdicts remembered beside the registry', () => {
  it('E2: a probe records the verdict of the revision it probed; a run of that revision starts from it with no server/discover', async () => {
    const service = await registry();
    const verdicts = new MemoryVerdictStore();
    const report = await new McpProber({ service, verdicts }).probe('tools/v2');
    expect(report.era).toBe('modern');
    expect(verdicts.get('tools/v2')).toMatchObject({ revision: 1, verdict: { era: 'modern', protocolVersion: '2026-07-28' } });
    expect((await service.read({ kind: 'mcp', reference: 'tools/v2' })).data).not.toHaveProperty('verdict'); // never inside the resource
    const before = discovers();
    const run = await NativeRun.start({ agent: 'team/e2', service, policy: policies.autoAllow('*'), verdicts });
    try {
      const { results } = await run.executeBatch(
        batch(run, [{ callId: 'e', name: toolAlias('tools/v2', 'echo'), arguments: { text: 'x' } }]),
      );
      expect(results[0]?.status).toBe('ok');
    } finally {
      await run.close();
    }
    expect(discovers()).toBe(before);
  });

  it('E2: an McpPool given the verdicts starts its connections from them: no server/discover', async () => {
    const service = await registry();
    const verdicts = new MemoryVerdictStore();
    await new McpProber({ service, verdicts }).probe('tools/v2');
    const before = discovers();
    await using pool = new McpPool({ service, verdicts });
    const run = await NativeRun.start({ agent: 'team/e2', service, policy: policies.autoAllow('*'), pool, scope: 's' });
    await run.close();
    expect(discovers()).toBe(before);
  });

  it('E2: after the config changes (a new revision) the run negotiates again and records the new revision', async () => {
    const service = await registry();
    const verdicts = new MemoryVerdictStore();
    await new McpProber({ service, verdicts }).probe('tools/v2');
    await service.write({
      kind: 'mcp',
      reference: 'tools/v2',
      expectedRevision: 1,
      data: { mcpServers: { v2: { url: server.url, handshakeTimeoutMs: 9000 } } },
    });
    const before = discovers();
    const run = await NativeRun.start({ agent: 'team/e2', service, policy: policies.autoAllow('*'), verdicts });
    await run.close();
    expect(discovers()).toBe(before + 1);
    expect(verdicts.get('tools/v2')).toMatchObject({ revision: 2, verdict: { era: 'modern' } });
  });

  it('E2: a legacy verdict is used within its bound and not after it; a modern one until the revision changes', () => {
    const learnedAt = '2026-12-01T00:00:00.000Z';
    const legacy: EraVerdict = { era: 'legacy', protocolVersion: '2025-11-25', learnedAt };
    const modern: EraVerdict = { era: 'modern', protocolVersion: '2026-07-28', discover: { supportedVersions: ['2026-07-28'] }, learnedAt };
    const at = Date.parse(learnedAt);
    expect(usableVerdict({ revision: 3, verdict: legacy }, 3, at + 60_000, 3_600_000)).toEqual(legacy);
    expect(usableVerdict({ revision: 3, verdict: legacy }, 3, at + 3_600_001, 3_600_000)).toBeUndefined();
    expect(usableVerdict({ revision: 3, verdict: legacy }, 3, at - 1, 3_600_000)).toBeUndefined(); // learned "in the future": not trusted
    expect(usableVerdict({ revision: 3, verdict: modern }, 3, at + 365 * 86_400_000)).toEqual(modern);
    expect(usableVerdict({ revision: 3, verdict: modern }, 4, at)).toBeUndefined();
  });

  it('E2: a stale modern verdict heals itself: the first request fails saying the verdict is forgotten; the next connection negotiates', async () => {
    const verdicts = new MemoryVerdictStore();
    const modern: EraVerdict = {
      era: 'modern',
      protocolVersion: '2026-07-28',
      discover: { supportedVersions: ['2026-07-28'], capabilities: { tools: {} } },
      learnedAt: new Date().toISOString(),
    };
    verdicts.put('tools/py', { revision: 1, verdict: modern }); // the server was rolled back to a 2025-only build
    const where = { verdicts, reference: 'tools/py', revision: 1, timeouts: { handshakeMs: 20_000 } };
    const stale = await connectMcp(pythonConfig(), where);
    try {
      const f = await failure(stale.listTools());
      expect(f.code).toBe('protocol_error');
      expect(f.message).toMatch(/remembered verdict .* it is forgotten, so the next connection negotiates the era again/);
      expect(f.details).toMatchObject({ verdictForgotten: true });
    } finally {
      await stale.close();
    }
    expect(verdicts.get('tools/py')).toBeUndefined();
    const healed = await connectMcp(pythonConfig(), where);
    try {
      expect(healed.era).toBe('legacy');
      expect((await healed.listTools()).length).toBeGreaterThan(0);
    } finally {
      await healed.close();
    }
    expect(verdicts.get('tools/py')?.verdict.era).toBe('legacy'); // learned again
  });

  it("E2: the CLI's verdicts (its probe notes) forget a stale verdict and keep the probe's note", async () => {
    const store = path.join(tmp.dir, 'forget.db');
    const verdict: EraVerdict = { era: 'legacy', protocolVersion: '2025-11-25', learnedAt: new Date().toISOString() };
    writeProbeNote(store, 'tools/a', { revision: 2, at: verdict.learnedAt, ok: true, tools: 3, era: 'legacy', verdict });
    const verdicts = notesVerdictStore(store);
    expect(await verdicts.get('tools/a')).toEqual({ revision: 2, verdict });
    await verdicts.delete!('tools/a');
    expect(await verdicts.get('tools/a')).toBeUndefined();
    expect(readProbeNotes(store)['tools/a']).toMatchObject({ revision: 2, ok: true, tools: 3 });
  });

  it('E2: a stale legacy verdict against a server that now speaks only 2026-07-28 is forgotten and the era negotiated at once', async () => {
    const verdicts = new MemoryVerdictStore();
    const legacy: EraVerdict = { era: 'legacy', protocolVersion: '2025-11-25', learnedAt: new Date().toISOString() };
    verdicts.put('tools/v2', { revision: 1, verdict: legacy });
    const connection = await connectMcp({ url: server.url }, { verdicts, reference: 'tools/v2', revision: 1 });
    try {
      expect(connection.era).toBe('modern');
      expect((await connection.listTools()).length).toBeGreaterThan(0);
    } finally {
      await connection.close();
    }
    expect(verdicts.get('tools/v2')?.verdict.era).toBe('modern');
  });

  it('E2: a legacy verdict past legacyVerdictMs is learned again: the stdio server is asked server/discover once more', async () => {
    const starts = path.join(tmp.dir, 'starts-aged.log');
    const service = new ResourceService({ store: new MemoryStore() });
    await service.write({
      kind: 'mcp',
      reference: 'tools/py',
      create: true,
      data: { mcpServers: { py: pythonConfig({ extra: ['--starts', starts] }) } },
    });
    await service.write({ kind: 'agent', reference: 'team/py', create: true, data: { mcps: ['tools/py'] } });
    const verdicts = new MemoryVerdictStore();
    const old = new Date(Date.now() - 2 * 3_600_000).toISOString();
    verdicts.put('tools/py', { revision: 1, verdict: { era: 'legacy', protocolVersion: '2025-11-25', learnedAt: old } });
    const run = await NativeRun.start({ agent: 'team/py', service, policy: policies.autoAllow('*'), verdicts, legacyVerdictMs: 3_600_000 });
    await run.close();
    expect(fs.readFileSync(starts, 'utf8')).toContain('before-initialize server/discover');
    expect(verdicts.get('tools/py')?.verdict.learnedAt).not.toBe(old);
  });

  it('E2: a bad legacyVerdictMs is invalid_input naming the field', async () => {
    const service = await registry();
    const f = await failure(NativeRun.start({ agent: 'team/e2', service, policy: policies.autoAllow('*'), legacyVerdictMs: -5 }));
    expect(f).toMatchObject({ code: 'invalid_input', details: { field: 'legacyVerdictMs' } });
  });
});

describe('E2: the CLI remembers what agt mcp probe learned', () => {
  it('E2: agt mcp probe shows the era and notes the verdict; agt mcp call then sends no request before initialize', async () => {
    const home = tempDir('agt-verdict-cli-');
    const starts = path.join(home.dir, 'starts.log');
    try {
      const db = path.join(home.dir, 'agt.db');
      const agt = (...args: string[]) => runAgt(args, { home: home.dir, db });
      const config = pythonConfig({ extra: ['--starts', starts] });
      expect((await agt('mcp', 'add', 'tools/py', '--cwd', FIXTURES, '--', config.command, ...config.args)).code).toBe(0);
      const probe = await agt('mcp', 'probe', 'tools/py');
      expect(probe.stdout).toMatch(/MCP 2025-\d\d-\d\d \(initialize\)/);
      const listed = await agt('mcp', 'list');
      expect(listed.stdout).toMatch(/✓ 4 tools, MCP 2025-\d\d-\d\d/);
      fs.rmSync(starts);
      const call = await agt('mcp', 'call', 'tools/py', 'echo', '--arg', 'message=hi');
      expect(call.code).toBe(0);
      expect(fs.readFileSync(starts, 'utf8').trim().split('\n')).toEqual(['start']);
    } finally {
      home.cleanup();
    }
  });
});

describe('E2: a verdict store is a convenience, never a wait', () => {
  it('E2: a store whose get, put and delete never settle is skipped after the handshake timeout, with a warning; the connection negotiates', async () => {
    const never = () => new Promise<never>(() => undefined);
    const hanging = { get: never, put: never, delete: never };
    const connection = await connectMcp(
      { url: server.url },
      { verdicts: hanging, reference: 'tools/v2', revision: 1, timeouts: { handshakeMs: 300 } },
    );
    try {
      expect(connection.era).toBe('modern');
      expect(connection.warnings.filter((w) => /era verdict store did not answer/.test(w))).toEqual([
        'the era verdict store did not answer get within 300 ms; it was skipped (the era is negotiated)',
        'the era verdict store did not answer put within 300 ms; it was skipped (the era is negotiated)',
      ]);
    } finally {
      await connection.close();
    }
  });
});
