/**
 * Protocol eras (E1, E2) against real servers of both eras: an SDK v2 server
 * serving only 2026-07-28 or both eras, over loopback HTTP and over stdio
 * (test/mcp/fixtures/v2-server.ts), and our Python fixture (2025 only),
 * including its modes that exit on, or never answer, a request before
 * initialize.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectMcp, McpProber, MemoryStore, NativeRun, policies, ResourceService, toolAlias } from '../../src/index.js';
import { batch, failure, pythonConfig, REPO_ROOT, tempDir, text, waitFor } from '../support/index.js';
import { startV2Http, type V2HttpServer } from './fixtures/v2-server.js';
import type { McpDocument } from '../../src/index.js';

const V2_SERVER = path.join(REPO_ROOT, 'test/mcp/fixtures/v2-server.ts');
const v2Stdio = (legacy: 'reject' | 'serve') => ({
  command: process.execPath,
  args: ['--import', 'tsx', V2_SERVER, '--stdio', '--legacy', legacy],
  cwd: REPO_ROOT,
});

let modernOnly: V2HttpServer;
let bothEras: V2HttpServer;
const tmp = tempDir('agt-eras-');
beforeAll(async () => {
  modernOnly = await startV2Http({ legacy: 'reject' });
  bothEras = await startV2Http({ legacy: 'stateless' });
});
afterAll(async () => {
  await modernOnly.close();
  await bothEras.close();
  tmp.cleanup();
});

describe('E1: every connection reaches servers of both eras', () => {
  it('E1: a server serving only 2026-07-28 over HTTP is connected, listed and called on the modern era', async () => {
    const connection = await connectMcp({ url: modernOnly.url });
    try {
      expect(connection.era).toBe('modern');
      expect(connection.protocolVersion).toBe('2026-07-28');
      expect(connection.serverInfo.name).toBe('v2-fixture');
      expect((await connection.listTools()).map((t) => t.name)).toEqual(expect.arrayContaining(['echo', 'slow', 'grow', 'count']));
      expect(text(await connection.callTool('echo', { text: 'hi' }))).toBe('hi (modern)');
    } finally {
      await connection.close();
    }
    expect(modernOnly.methods).not.toContain('initialize');
  });

  it('E1: a server of both eras is reached on the modern era by default, and on the 2025 one when the config says "legacy"', async () => {
    const auto = await connectMcp({ url: bothEras.url });
    const legacy = await connectMcp({ url: bothEras.url, protocol: 'legacy' });
    try {
      expect([auto.era, legacy.era]).toEqual(['modern', 'legacy']);
      expect(text(await auto.callTool('echo', { text: 'a' }))).toBe('a (modern)');
      expect(text(await legacy.callTool('echo', { text: 'b' }))).toBe('b (legacy)');
      expect(legacy.protocolVersion < '2026').toBe(true);
    } finally {
      await auto.close();
      await legacy.close();
    }
  });

  it('E1: a stdio server serving only 2026-07-28 is connected and called on the modern era; close leaves no process', async () => {
    const connection = await connectMcp(v2Stdio('reject'), { timeouts: { handshakeMs: 20_000 } });
    const pid = (connection as unknown as { stdio?: { pid?: number } }).stdio?.pid;
    expect(connection.era).toBe('modern');
    expect(text(await connection.callTool('echo', { text: 'over stdio' }))).toBe('over stdio (modern)');
    await connection.close();
    if (pid !== undefined) expect(fs.existsSync(`/proc/${pid}`)).toBe(false);
  });

  it('E1: a modern stdio server that starts slower than the era probe is still reached on 2026-07-28 (started once more), not on 2025', async () => {
    const starts = path.join(tmp.dir, 'starts-slow.log');
    const config = { ...v2Stdio('serve'), args: [...v2Stdio('serve').args, '--slow-first-start', starts] };
    // The probe gets half the handshake; the first start answers only after the client fell back to initialize.
    const connection = await connectMcp(config, { timeouts: { handshakeMs: 20_000 } });
    try {
      expect(connection.era).toBe('modern');
      expect(connection.verdict).toMatchObject({ era: 'modern', protocolVersion: '2026-07-28' });
      expect(connection.warnings.join('\n')).toMatch(
        /answered server\/discover after the 10000 ms the era probe waits.*handshakeTimeoutMs/,
      );
      expect(text(await connection.callTool('echo', { text: 'late' }))).toBe('late (modern)');
    } finally {
      await connection.close();
    }
    expect(fs.readFileSync(starts, 'utf8').trim().split('\n')).toEqual(['start', 'start']);
    // The probe alone waits 10 s, then a second start through tsx: on a loaded machine more than the default 30 s.
  }, 90_000);

  it('E1: our 2025-only Python server is reached on the legacy era in auto mode (server/discover answered with an error)', async () => {
    const starts = path.join(tmp.dir, 'starts-plain.log');
    const connection = await connectMcp(pythonConfig({ extra: ['--starts', starts] }));
    try {
      expect(connection.era).toBe('legacy');
      expect(text(await connection.callTool('echo', { message: 'x' }))).toContain('x');
    } finally {
      await connection.close();
    }
    expect(fs.readFileSync(starts, 'utf8').trim().split('\n')).toEqual(['start', 'before-initialize server/discover']);
  });

  it('E1: a legacy stdio server that exits on a request before initialize still connects; its process is started twice, no more', async () => {
    const starts = path.join(tmp.dir, 'starts-exit.log');
    const connection = await connectMcp(pythonConfig({ mode: 'exit-before-init', extra: ['--starts', starts] }));
    try {
      expect(connection.era).toBe('legacy');
      expect(text(await connection.callTool('echo', { message: 'y' }))).toContain('y');
    } finally {
      await connection.close();
    }
    expect(fs.readFileSync(starts, 'utf8').trim().split('\n')).toEqual(['start', 'before-initialize server/discover', 'start']);
  });

  it('E1: a legacy stdio server that never answers a request before initialize still connects, within the handshake timeout', async () => {
    const connection = await connectMcp(pythonConfig({ mode: 'silent-before-init' }), { timeouts: { handshakeMs: 8000 } });
    try {
      expect(connection.era).toBe('legacy');
      expect(text(await connection.callTool('echo', { message: 'z' }))).toContain('z');
    } finally {
      await connection.close();
    }
  });

  it('E1: pinning 2026-07-28 against a 2025-only server fails with protocol_mismatch naming what it offers; nothing is called', async () => {
    const f = await failure(connectMcp({ ...pythonConfig(), protocol: '2026-07-28' }));
    expect(f).toMatchObject({ code: 'protocol_mismatch', details: { pinned: '2026-07-28', offered: ['legacy'] } });
    expect(f.message).toMatch(/set "protocol": "auto"/);
    expect(f.message).toMatch(/answered server\/discover with error -32601 \(method not found\)/);
  });

  it("E1: a refusal quoted in protocol_mismatch is the server's words escaped and bounded: no terminal escape or line break gets through", async () => {
    // A server that answers its first request with an error whose message carries an ANSI escape, line breaks and 5,000 characters.
    const words = `\u001b[2J\u001b[31mfake prompt$ \nrm -rf ~\r\n${'x'.repeat(5000)}`;
    const script = `process.stdin.once('data', (d) => { const { id } = JSON.parse(String(d).split('\\n')[0]); process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32601, message: ${JSON.stringify(words)} } }) + '\\n'); });`;
    const f = await failure(connectMcp({ command: process.execPath, args: ['-e', script], cwd: REPO_ROOT, protocol: '2026-07-28' }));
    expect(f).toMatchObject({ code: 'protocol_mismatch' });
    expect(f.message).toMatch(/answered server\/discover with error -32601 \(\\x1b\[2J/); // outsideText: \xNN
    expect(f.message).not.toMatch(/[\u0000-\u001f]/);
    expect(f.message.length).toBeLessThan(1000);
  });

  it('E1: a pinned 2026-07-28 stdio server that answers nothing within the handshake is handshake_timeout on server/discover, not protocol_mismatch', async () => {
    const f = await failure(connectMcp({ ...pythonConfig({ mode: 'hang' }), protocol: '2026-07-28' }, { timeouts: { handshakeMs: 1500 } }));
    expect(f).toMatchObject({ code: 'handshake_timeout', details: { phase: 'server/discover', timeoutMs: 1500 } });
    expect(f.message).toMatch(/did not answer server\/discover within 1500 ms/);
  });

  it('E1: a pinned 2026-07-28 stdio server slower to start than half the handshake still connects (a pin has no fallback to share the time with)', async () => {
    // Answers 11 s into a 20 s handshake: past the half an auto probe gets, and 9 s short of the whole (room for a
    // busy machine's slow start: the tickets server once took 5 s to start beside the conformance runs).
    const slow = { ...v2Stdio('reject'), protocol: '2026-07-28' as const };
    const connection = await connectMcp({ ...slow, args: [...slow.args, '--start-delay', '11000'] }, { timeouts: { handshakeMs: 20_000 } });
    try {
      expect(connection.era).toBe('modern');
      expect(text(await connection.callTool('echo', { text: 'late' }))).toBe('late (modern)');
    } finally {
      await connection.close();
    }
  });

  it('E1: pinning the 2025 era against a server serving only 2026-07-28 fails with protocol_mismatch, never a bare HTTP error', async () => {
    const f = await failure(connectMcp({ url: modernOnly.url, protocol: 'legacy' }));
    expect(f.code).toBe('protocol_mismatch');
    expect(f.details).toMatchObject({ pinned: 'legacy' });
  });

  it('E1: a config protocol other than auto, legacy or 2026-07-28 is invalid_input naming the field', async () => {
    const f = await failure(connectMcp({ url: modernOnly.url, protocol: '2025-06-18' } as never));
    expect(f).toMatchObject({ code: 'invalid_input', details: { field: 'mcpServers.server.protocol' } });
  });
});

describe('E2: a verdict learned once lets the next connection skip discovery', () => {
  it('E2: with the verdict of a probe, a connection to a modern server sends no server/discover', async () => {
    const report = await new McpProber().probe({ mcpServers: { v2: { url: modernOnly.url } } });
    expect(report).toMatchObject({ era: 'modern', protocolVersion: '2026-07-28', verdict: { era: 'modern' } });
    expect(report.pingMs).toBeGreaterThanOrEqual(0); // 2026-07-28 has no ping: the probe times a server/discover instead
    const before = modernOnly.methods.filter((m) => m === 'server/discover').length;
    const connection = await connectMcp({ url: modernOnly.url }, { verdict: report.verdict });
    try {
      expect(connection.era).toBe('modern');
      expect(text(await connection.callTool('echo', { text: 'again' }))).toBe('again (modern)');
    } finally {
      await connection.close();
    }
    expect(modernOnly.methods.filter((m) => m === 'server/discover').length).toBe(before);
  });

  it('E2: with a legacy verdict, a stdio server is sent no request before initialize', async () => {
    const starts = path.join(tmp.dir, 'starts-verdict.log');
    const first = await connectMcp(pythonConfig());
    const verdict = first.verdict;
    await first.close();
    expect(verdict).toMatchObject({ era: 'legacy' });
    const connection = await connectMcp(pythonConfig({ extra: ['--starts', starts] }), { verdict });
    await connection.close();
    expect(fs.readFileSync(starts, 'utf8').trim().split('\n')).toEqual(['start']);
  });
});

describe('E1: calls on the modern era keep their timeouts and cancellation', () => {
  it('E1: a call past its timeout is call_timeout, and the modern server sees it cancelled', async () => {
    const connection = await connectMcp({ url: modernOnly.url });
    try {
      const before = modernOnly.state.cancelled;
      const f = await failure(connection.callTool('slow', { ms: 30_000 }, { timeoutMs: 300 }));
      expect(f.code).toBe('call_timeout');
      const deadline = Date.now() + 10_000;
      while (modernOnly.state.cancelled === before && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(modernOnly.state.cancelled).toBe(before + 1);
      expect(text(await connection.callTool('echo', { text: 'after' }))).toBe('after (modern)');
    } finally {
      await connection.close();
    }
  });

  it('E1: a call cancelled by the host is cancelled on a stdio modern server too', async () => {
    const connection = await connectMcp(v2Stdio('reject'), { timeouts: { handshakeMs: 20_000 } });
    try {
      const controller = new AbortController();
      const call = failure(connection.callTool('slow', { ms: 30_000 }, { signal: controller.signal }));
      setTimeout(() => controller.abort(), 200);
      expect((await call).code).toBe('cancelled');
      const deadline = Date.now() + 10_000;
      while (!connection.stderrTail().includes('slow: cancelled') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(connection.stderrTail()).toContain('slow: cancelled (1)');
    } finally {
      await connection.close();
    }
  });
});

describe('E1: pinning the 2025 era against a stdio server of 2026-07-28 only', () => {
  it('E1: protocol_mismatch naming the versions the server offers; no process is left', async () => {
    const f = await failure(connectMcp({ ...v2Stdio('reject'), protocol: 'legacy' }, { timeouts: { handshakeMs: 20_000 } }));
    expect(f.code).toBe('protocol_mismatch');
    expect(f.details).toMatchObject({ pinned: 'legacy', offered: ['2026-07-28'] });
  });
});

describe('E1: list changes of a modern server arrive on subscriptions/listen', () => {
  it('E1: a tool added on a modern HTTP server is announced to the connection', async () => {
    const server = await startV2Http({ legacy: 'reject' });
    const connection = await connectMcp({ url: server.url });
    try {
      const seen: string[] = [];
      connection.onListChanged((kind) => seen.push(kind));
      await connection.callTool('grow', {});
      await waitFor(() => seen.includes('tools'));
      expect((await connection.listTools()).map((t) => t.name)).toContain('extra_1');
      expect(server.methods).toContain('subscriptions/listen');
    } finally {
      await connection.close();
      await server.close();
    }
  });

  it('E1: a tool added on a modern stdio server is announced to the connection', async () => {
    const connection = await connectMcp(v2Stdio('reject'), { timeouts: { handshakeMs: 20_000 } });
    try {
      const seen: string[] = [];
      connection.onListChanged((kind) => seen.push(kind));
      await connection.callTool('grow', {});
      await waitFor(() => seen.includes('tools'));
      expect((await connection.listTools()).map((t) => t.name)).toContain('extra_1');
    } finally {
      await connection.close();
    }
  });
});

describe('E1: a run mounts servers of both eras', () => {
  const mounted = async (config: Record<string, unknown>, callMs = 30_000) => {
    const service = new ResourceService({ store: new MemoryStore() });
    await service.write({
      kind: 'mcp',
      reference: 'tools/v2',
      create: true,
      data: { mcpServers: { v2: config } } as unknown as McpDocument,
    });
    await service.write({ kind: 'agent', reference: 'team/eras', create: true, data: { mcps: ['tools/v2'] } });
    return NativeRun.start({ agent: 'team/eras', service, policy: policies.autoAllow('*'), timeouts: { handshakeMs: 20_000, callMs } });
  };
  const v2 = (tool: string) => toolAlias('tools/v2', tool);

  for (const [name, config] of [
    ['modern HTTP', () => ({ url: modernOnly.url })],
    ['modern stdio', () => v2Stdio('reject')],
    // (the both-era HTTP server serves 2025 statelessly: it has no stream to announce a change on, so stdio stands in)
    ['both-era stdio pinned legacy', () => ({ ...v2Stdio('serve'), protocol: 'legacy' })],
  ] as const) {
    it(`E1/B4/F1: ${name}: a valid call runs, an invalid one never reaches the server, a list change is applied at the next batch`, async () => {
      const run = await mounted(config());
      try {
        const first = await run.executeBatch(
          batch(run, [
            { callId: 'ok', name: v2('echo'), arguments: { text: 'hello' } },
            { callId: 'bad', name: v2('echo'), arguments: { text: 42 } },
            { callId: 'g', name: v2('grow'), arguments: {} },
          ]),
        );
        expect(first.results.map((r) => r.status)).toEqual(['ok', 'invalid_arguments', 'ok']);
        await waitFor(() => run.staleMounts.length > 0 || run.snapshot.aliases.includes(v2('extra_1')));
        const second = await run.executeBatch(batch(run, [{ callId: 'x', name: v2('extra_1'), arguments: {} }]));
        expect(second.results[0]?.status).toBe('ok');
      } finally {
        await run.close();
      }
    });
  }

  it('E1: a call of a modern mount past its timeout is call_timeout; the batch beside it is unharmed', async () => {
    const run = await mounted({ url: modernOnly.url }, 2000);
    try {
      const { results } = await run.executeBatch(
        batch(run, [
          { callId: 's', name: v2('slow'), arguments: { ms: 30_000 } },
          { callId: 'e', name: v2('echo'), arguments: { text: 'beside' } },
        ]),
      );
      expect(results[1]?.status).toBe('ok');
      expect(results[0]).toMatchObject({ status: 'tool_failed', error: { code: 'call_timeout' } });
    } finally {
      await run.close();
    }
  });
});

describe("E4: a modern server's question (input_required) is answered inline by the run's handlers", () => {
  for (const [name, config] of [
    ['modern HTTP', () => ({ url: modernOnly.url })],
    ['modern stdio', () => v2Stdio('reject')],
    ['both-era stdio on the legacy era (pushed elicitation)', () => ({ ...v2Stdio('serve'), protocol: 'legacy' as const })],
  ] as const) {
    it(`E4: ${name}: the elicitation handler is asked once and the call completes with its answer`, async () => {
      const asked: string[] = [];
      const connection = await connectMcp(config(), {
        timeouts: { handshakeMs: 20_000 },
        elicitation: async (request) => {
          asked.push(String((request as { message?: unknown }).message));
          return { action: 'accept', content: { confirm: true } };
        },
      });
      try {
        const result = await connection.callTool('ask', { what: 'deploy' });
        expect(text(result)).toMatch(/^deploy: confirmed/);
        expect(asked).toEqual(['Really deploy?']);
      } finally {
        await connection.close();
      }
    });
  }

  it('E4: without an elicitation handler the modern server is told the capability is missing; the call fails, the connection lives', async () => {
    const connection = await connectMcp({ url: modernOnly.url });
    try {
      const f = await failure(connection.callTool('ask', { what: 'deploy' }));
      expect(f.code).toBe('protocol_error');
      expect(f.details).toMatchObject({ reason: 'server_error', rpcCode: -32021 }); // the SDK server refuses itself
      expect(text(await connection.callTool('echo', { text: 'still here' }))).toBe('still here (modern)');
    } finally {
      await connection.close();
    }
  });
});

describe('E1: a modern server logs only when the host asked for it', () => {
  it('E1: no log messages without a level; after setLogLevel the level goes with each call and the messages arrive', async () => {
    const connection = await connectMcp({ url: modernOnly.url });
    try {
      const logs: unknown[] = [];
      connection.onLog((message) => logs.push(message));
      expect(text(await connection.callTool('chatty', {}))).toBe('logged');
      expect(logs).toEqual([]);
      await connection.setLogLevel('info');
      expect(text(await connection.callTool('chatty', {}))).toBe('logged');
      await waitFor(() => logs.length > 0);
      expect(logs).toEqual([{ level: 'info', logger: 'fixture', data: { said: 'hello' } }]);
    } finally {
      await connection.close();
    }
  });
});

describe('E1: resource subscriptions of a modern server ride subscriptions/listen', () => {
  it('E1: after subscribeResource an update of that resource arrives; after unsubscribe it no longer does', async () => {
    const server = await startV2Http({ legacy: 'reject' });
    const connection = await connectMcp({ url: server.url });
    try {
      const updates: string[] = [];
      connection.onResourceUpdated(({ uri }) => updates.push(uri));
      await connection.subscribeResource('note://1');
      await connection.callTool('touch', {});
      await waitFor(() => updates.length > 0);
      expect(updates).toEqual(['note://1']);
      expect(server.methods).not.toContain('resources/subscribe'); // 2026-07-28 has none: the listen filter carries it
      await connection.unsubscribeResource('note://1');
      await connection.callTool('touch', {});
      await connection.callTool('echo', { text: 'x' }); // a round trip after the touch: an update would have come first
      expect(updates).toEqual(['note://1']);
    } finally {
      await connection.close();
      await server.close();
    }
  });
});
