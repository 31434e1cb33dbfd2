/**
 * The rest of the MCP client against the reference server-everything (real
 * process over stdio): server instructions, ping, completion, log levels and
 * log messages, resource subscriptions, roots, URL-mode elicitation, progress
 * that resets the call timeout — and the probe reporting the same (P2).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { connectMcp, type McpConnection, type McpLogMessage, McpProber } from '../../src/index.js';
import { failure, pythonConfig, referenceServer, tempDir } from '../support/index.js';

const tmp = tempDir('agt-rest-');
afterAll(() => tmp.cleanup());
const everything = () => ({ command: process.execPath, args: [referenceServer('everything'), 'stdio'], cwd: tmp.dir });

// Resolves with the first value `subscribe` hands its listener that `accept` takes; never a sleep.
function first<T>(subscribe: (listener: (value: T) => void) => () => void, accept: (value: T) => boolean = () => true): Promise<T> {
  return new Promise((resolve) => {
    const stop = subscribe((value) => {
      if (!accept(value)) return;
      stop();
      resolve(value);
    });
  });
}

const text = (result: { content: unknown[] }) => (result.content as { text?: string }[]).map((c) => c.text ?? '').join('\n');

describe('server-everything: the client features beyond tools', () => {
  it('P2: instructions, ping and whether the server logs are in the probe report; instructions as on the connection', async () => {
    const report = await new McpProber().probe({ mcpServers: { everything: everything() } });
    expect(report.instructions).toMatch(/\w{20,}/);
    expect(report.pingMs).toBeGreaterThanOrEqual(0);
    const logs = await new McpProber().probe({ mcpServers: { py: pythonConfig({ extra: ['--feature', 'logs'] }) } });
    const quiet = await new McpProber().probe({ mcpServers: { py: pythonConfig() } });
    expect([logs.logMessages, quiet.logMessages]).toEqual([1, 0]); // the fixture with logs says it started, once
    await using connection = await connectMcp(everything());
    expect(connection.instructions).toBe(report.instructions);
    expect(await connection.ping()).toBeGreaterThanOrEqual(0);
  });

  it('P2: complete() gives the values of a prompt argument, narrowed by the arguments already chosen', async () => {
    await using connection = await connectMcp(everything());
    const ref = { type: 'ref/prompt' as const, name: 'completable-prompt' };
    expect((await connection.complete(ref, { name: 'department', value: 'E' })).values).toEqual(['Engineering']);
    expect((await connection.complete(ref, { name: 'name', value: 'D' }, { department: 'Sales' })).values).toEqual(['David']);
  });

  it('P2: setLogLevel, then log messages reach onLog and never the tool result', async () => {
    await using connection = await connectMcp(everything());
    await connection.setLogLevel('debug');
    const logged = first<McpLogMessage>((l) => connection.onLog(l));
    const result = await connection.callTool('toggle-simulated-logging', {});
    const message = await logged;
    expect(['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency']).toContain(message.level);
    expect(JSON.stringify(result)).not.toContain(String(message.data));
    await connection.callTool('toggle-simulated-logging', {}); // off again: no timer left on the server
    await expect(connection.setLogLevel('loud' as never)).rejects.toMatchObject({ code: 'invalid_input' });
  });

  it('P2: subscribeResource: notifications/resources/updated for the subscribed URI reach onResourceUpdated', async () => {
    await using connection = await connectMcp(everything());
    const [resource] = await connection.listResources();
    const uri = resource!.uri;
    await connection.subscribeResource(uri);
    const updated = first<{ uri: string }>((l) => connection.onResourceUpdated(l));
    await connection.callTool('toggle-subscriber-updates', {});
    expect(await updated).toEqual({ uri });
    await connection.callTool('toggle-subscriber-updates', {});
    await connection.unsubscribeResource(uri);
  });

  it('P2: roots: declared with listChanged, answered from the host, asked again after rootsChanged()', async () => {
    let roots = [{ uri: 'file:///work/project-a', name: 'project a' }];
    let asked = 0;
    await using connection = await connectMcp(everything(), {
      roots: () => {
        asked += 1;
        return roots;
      },
    });
    expect(connection.clientCapabilities.roots).toEqual({ listChanged: true });
    expect(text(await connection.callTool('get-roots-list', {}))).toContain('file:///work/project-a');
    const before = asked;
    roots = [{ uri: 'file:///work/project-b', name: 'project b' }];
    const synced = first<McpLogMessage>(
      (l) => connection.onLog(l),
      (m) => /Roots updated/.test(String(m.data)),
    );
    await connection.rootsChanged();
    await synced; // the server asked again and said so
    expect(asked).toBeGreaterThan(before);
    expect(text(await connection.callTool('get-roots-list', {}))).toContain('file:///work/project-b');
  });

  it('P2: a bad root fails the connection with invalid_input naming it', async () => {
    const f = await failure(connectMcp(everything(), { roots: [{ uri: '/not/a/uri' }] }));
    expect(f).toMatchObject({ code: 'invalid_input', details: { field: 'roots[0].uri' } });
  });

  it('P2: URL-mode elicitation is declared only when the handler accepts it, and reaches the handler with its url', async () => {
    const seen: unknown[] = [];
    await using formOnly = await connectMcp(everything(), { elicitation: async () => ({ action: 'decline' }) });
    expect(formOnly.clientCapabilities.elicitation).toEqual({ form: { applyDefaults: true } });
    await using connection = await connectMcp(everything(), {
      elicitation: async (request) => {
        seen.push(request);
        return { action: 'accept' };
      },
      elicitationModes: ['form', 'url'],
    });
    expect(connection.clientCapabilities.elicitation).toEqual({ form: { applyDefaults: true }, url: {} });
    const result = await connection.callTool('trigger-url-elicitation', { url: 'https://example.test/approve', elicitationId: 'e-1' });
    expect(result.isError).toBe(false);
    expect(seen).toEqual([expect.objectContaining({ mode: 'url', url: 'https://example.test/approve', elicitationId: 'e-1' })]);
  });

  it('P2: progress resets the call timeout when asked (resetOnProgress); maxTotalMs still bounds the call', async () => {
    const call = (connection: McpConnection) => connection.callTool('trigger-long-running-operation', { duration: 2.4, steps: 6 });
    await using plain = await connectMcp(everything(), { timeouts: { callMs: 1000 } });
    expect(await failure(call(plain))).toMatchObject({ code: 'call_timeout' });
    await using resets = await connectMcp(everything(), { timeouts: { callMs: 1000, resetOnProgress: true } });
    expect(text(await call(resets))).toMatch(/completed/);
    await using bounded = await connectMcp(everything(), { timeouts: { callMs: 1000, resetOnProgress: true, maxTotalMs: 1500 } });
    expect(await failure(call(bounded))).toMatchObject({ code: 'call_timeout' });
  });
});

describe('tasks (2025-11-25, experimental) against server-everything', () => {
  const research = (connection: McpConnection, options = {}) =>
    connection.callTool('simulate-research-query', { topic: 'tide pools' }, options);

  it('E6: by default (tasks "wait"), a tool that requires a task runs as one through ext-tasks (tools/call with task, tasks/get, tasks/result)', async () => {
    await using connection = await connectMcp(everything());
    expect((await connection.listTools()).find((t) => t.name === 'simulate-research-query')?.execution).toEqual({
      taskSupport: 'required',
    });
    expect(text(await research(connection))).toMatch(/Research Report: tide pools/);
    expect(connection.inFlight).toBe(0);
  });

  it('E6: with tasks false, such a tool is called plainly and the server refuses it with a tool error', async () => {
    await using connection = await connectMcp(everything(), { tasks: false });
    await connection.listTools();
    const result = await research(connection);
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/requires task augmentation/);
  });

  it('E6: a cancel or the total deadline ends the task call at once; the connection goes on', async () => {
    await using connection = await connectMcp(everything(), { timeouts: { maxTotalMs: 1500 } });
    await connection.listTools();
    expect(await failure(research(connection))).toMatchObject({ code: 'call_timeout', details: { reason: 'task_timeout' } });
    const controller = new AbortController();
    const call = research(connection, { signal: controller.signal, maxTotalTimeoutMs: 60_000 });
    controller.abort();
    expect(await failure(call)).toMatchObject({ code: 'cancelled' });
    expect(await connection.ping()).toBeGreaterThanOrEqual(0);
    expect(connection.inFlight).toBe(0);
  });
});
