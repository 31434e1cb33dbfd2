/**
 * A native run against the real Python server: its snapshot (B1, B2), one batch through the strict pipeline
 * (B3–B6), who may call what and which agents run natively (G3, G4). The framework and delegate tools (G1, G2,
 * G5, H1, B7): test/framework/framework-tools.test.ts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type AuditEvent, isAgtError, NativeRun, type PermissionRequest, policies, toolAlias } from '../../src/index.js';
import { batch, py, setup } from '../support/index.js';
import type { StdioServerConfig } from '../../src/config/mcp-config.js';

let env: Awaited<ReturnType<typeof setup>>;
let run: NativeRun | undefined;
afterEach(async () => {
  await run?.close();
  run = undefined;
  env?.tmp.cleanup();
});

async function start(data: Record<string, unknown>, extra: Partial<Parameters<typeof NativeRun.start>[0]> = {}) {
  env = await setup();
  await env.service.write({ kind: 'agent', reference: 'team/alice', create: true, data });
  run = await NativeRun.start({ agent: 'team/alice', service: env.service, policy: policies.autoAllow('*'), ...extra });
  return run;
}

describe('B1/B2: the run snapshot', () => {
  it('B1: a run connects its mounts, lists tools and keeps schemas and validators in one snapshot', async () => {
    const r = await start({ mcps: ['tools/py'] });
    expect(r.snapshot.mounts).toEqual([{ reference: 'tools/py', revision: 1 }]);
    expect(r.snapshot.aliases).toEqual([py('echo'), py('add'), py('withdraw'), py('whereami')]);
    const echo = r.tools().find((t) => t.name === py('echo'));
    expect(echo?.inputSchema).toEqual({
      type: 'object',
      properties: { message: { type: 'string', minLength: 1, maxLength: 200 } },
      required: ['message'],
      additionalProperties: false,
    });
  });

  it('B2: the fingerprint covers the tool schemas: a changed schema changes it', async () => {
    const r = await start({ mcps: ['tools/py'] });
    const before = r.snapshot.fingerprint;
    await r.close();
    const stored = (await env.service.read({ kind: 'mcp', reference: 'tools/py' })).data as {
      mcpServers: { py: StdioServerConfig & { args: string[] } };
    };
    await env.service.write({
      kind: 'mcp',
      reference: 'tools/py',
      data: { mcpServers: { py: { ...stored.mcpServers.py, args: [...stored.mcpServers.py.args, '--echo-max', '50'] } } },
    });
    run = await NativeRun.start({ agent: 'team/alice', service: env.service, policy: policies.autoAllow('*') });
    expect(run.snapshot.fingerprint).not.toBe(before);
    expect(run.snapshot.aliases).toEqual(r.snapshot.aliases);
  });

  it('B1: a mount that fails to load fails start, naming the mount and the cause; nothing is left running', async () => {
    env = await setup();
    await env.service.write({
      kind: 'mcp',
      reference: 'tools/broken',
      create: true,
      data: { mcpServers: { b: { command: 'agt-no-such-cmd', cwd: env.tmp.dir } } },
    });
    await env.service.write({ kind: 'agent', reference: 'team/alice', create: true, data: { mcps: ['tools/py', 'tools/broken'] } });
    const error = await NativeRun.start({ agent: 'team/alice', service: env.service, policy: policies.autoAllow('*') }).catch(
      (e: unknown) => e,
    );
    expect(isAgtError(error) && error.code).toBe('spawn_failed');
    expect((error as Error).message).toMatch(/^mount "tools\/broken" failed to load/);
    const skipping = await NativeRun.start({
      agent: 'team/alice',
      service: env.service,
      policy: policies.autoAllow('*'),
      skipBrokenMounts: true,
    });
    expect(skipping.snapshot.mounts.map((m) => m.reference)).toEqual(['tools/py']);
    expect(skipping.notices.join()).toMatch(/tools\/broken.*skipped/);
    run = skipping;
  });
});

describe('B3–B6: one batch', () => {
  it('B4/B5: a mixed batch — valid, invalid and denied calls — each gets its own result, in call order', async () => {
    let asked = 0;
    const r = await start(
      { mcps: ['tools/py'] },
      {
        policy: policies.chain(
          policies.autoAllow([py('echo'), py('add')]),
          policies.human(async () => {
            asked += 1;
            return false;
          }),
        ),
      },
    );
    const { results } = await r.executeBatch(
      batch(r, [
        { callId: 'c1', name: py('echo'), arguments: '{"message":"hello"}' },
        { callId: 'c2', name: py('add'), arguments: { a: 'two', b: 3 } },
        { callId: 'c3', name: py('withdraw'), arguments: { amount: 5 } },
        { callId: 'c4', name: py('add'), arguments: { a: 2, b: 3 } },
      ]),
    );
    expect(results.map((x) => [x.callId, x.status])).toEqual([
      ['c1', 'ok'],
      ['c2', 'invalid_arguments'],
      ['c3', 'permission_denied'],
      ['c4', 'ok'],
    ]);
    expect(asked).toBe(1); // only the valid withdraw reached the human
    expect(env.calls().map((c) => c.tool)).toEqual(expect.arrayContaining(['echo', 'add']));
    expect(env.calls()).toHaveLength(2);
  });

  it('B4: invalid arguments create no approval and never reach the server; the result keeps the callId and the issues', async () => {
    const reviewed: PermissionRequest[] = [];
    const r = await start(
      { mcps: ['tools/py'] },
      {
        policy: {
          review: async (req) => {
            reviewed.push(req);
            return { decision: 'allow', by: 'auto' };
          },
        },
      },
    );
    const { results } = await r.executeBatch(
      batch(r, [
        { callId: 'x1', name: py('echo'), arguments: { message: '' } },
        { callId: 'x2', name: py('echo'), arguments: '{not json' },
        { callId: 'x3', name: py('echo'), arguments: { message: 'ok', extra: true } },
      ]),
    );
    expect(results.every((x) => x.status === 'invalid_arguments')).toBe(true);
    expect(results.map((x) => x.callId)).toEqual(['x1', 'x2', 'x3']);
    expect(results[0]).toMatchObject({
      error: { code: 'invalid_arguments', details: { issues: [{ instancePath: '/message', keyword: 'minLength' }] } },
    });
    expect(reviewed).toEqual([]);
    expect(env.calls()).toEqual([]);
  });

  it('B6: an unknown tool rejects the whole batch before anything runs', async () => {
    const r = await start({ mcps: ['tools/py'] });
    const error = await r
      .executeBatch(
        batch(r, [
          { callId: 'a', name: py('echo'), arguments: { message: 'must not run' } },
          { callId: 'b', name: 'no_such_tool', arguments: {} },
        ]),
      )
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'batch_rejected', details: { reason: 'unknown_tool', tool: 'no_such_tool' } });
    expect(env.calls()).toEqual([]);
  });

  it.each([
    ['identity_mismatch', (r: NativeRun) => ({ runId: 'other-run', agent: r.agent, batchId: 'z1', calls: [] })],
    [
      'duplicate_call_id',
      (r: NativeRun) => ({
        runId: r.id,
        agent: r.agent,
        batchId: 'z2',
        calls: [
          { callId: 'same', name: py('echo'), arguments: { message: 'a' } },
          { callId: 'same', name: py('echo'), arguments: { message: 'b' } },
        ],
      }),
    ],
    [
      'missing_call_id',
      (r: NativeRun) => ({ runId: r.id, agent: r.agent, batchId: 'z3', calls: [{ callId: '', name: py('echo'), arguments: {} }] }),
    ],
  ])('B6: %s rejects the whole batch', async (reason, make) => {
    const r = await start({ mcps: ['tools/py'] });
    await expect(r.executeBatch(make(r) as never)).rejects.toMatchObject({ code: 'batch_rejected', details: { reason } });
    expect(env.calls()).toEqual([]);
  });

  it('B6: a batch id cannot run twice', async () => {
    const r = await start({ mcps: ['tools/py'] });
    const b = batch(r, [{ callId: 'c', name: py('echo'), arguments: { message: 'once' } }]);
    await r.executeBatch(b);
    await expect(r.executeBatch(b)).rejects.toMatchObject({ details: { reason: 'duplicate_batch_id' } });
    expect(env.calls()).toHaveLength(1);
  });

  it('B3: order of stages: validation → permission → before hooks → execute → after hooks', async () => {
    const order: string[] = [];
    const r = await start(
      { mcps: ['tools/py'] },
      {
        policy: {
          review: async () => {
            order.push('permission');
            return { decision: 'allow', by: 'auto' };
          },
        },
        hooks: {
          before: [
            () => {
              order.push('before');
            },
          ],
          after: [
            (_req, result) => {
              order.push(`after:${result.status}`);
              return { content: [{ type: 'text', text: '[redacted]' }] };
            },
          ],
        },
      },
    );
    const { results } = await r.executeBatch(batch(r, [{ callId: 'c', name: py('echo'), arguments: { message: 'secret' } }]));
    expect(order).toEqual(['permission', 'before', 'after:ok']);
    expect(results[0]).toMatchObject({ status: 'ok', content: [{ type: 'text', text: '[redacted]' }] });
    expect(env.calls()).toEqual([{ tool: 'echo', arguments: { message: 'secret' } }]);
  });

  it('B3: a before hook may deny; it cannot change the arguments (they are frozen)', async () => {
    const r = await start(
      { mcps: ['tools/py'] },
      {
        hooks: {
          before: [
            (req) => {
              Reflect.set(req.arguments, 'a', 1000);
            },
            (req) => (req.tool === py('withdraw') ? { deny: 'withdrawals need a ticket' } : undefined),
          ],
        },
      },
    );
    const { results } = await r.executeBatch(
      batch(r, [
        { callId: 'c1', name: py('add'), arguments: { a: 1, b: 2 } },
        { callId: 'c2', name: py('withdraw'), arguments: { amount: 1 } },
      ]),
    );
    expect(results[0]).toMatchObject({ status: 'ok', structuredContent: { sum: 3 } });
    expect(results[1]).toMatchObject({
      status: 'permission_denied',
      error: { message: 'withdrawals need a ticket', details: { by: 'hook' } },
    });
  });

  it("a server's business error is a tool_error result with its code, not an exception", async () => {
    const r = await start({ mcps: ['tools/py'] });
    const { results } = await r.executeBatch(batch(r, [{ callId: 'c', name: py('withdraw'), arguments: { amount: 1e9 } }]));
    expect(results[0]).toMatchObject({ status: 'tool_error', error: { code: 'insufficient_funds' } });
  });

  it('a server that dies mid-run gives tool_failed and a broken route, never a crash of the run', async () => {
    env = await setup({ mode: 'crash-after-init' });
    await env.service.write({ kind: 'agent', reference: 'team/alice', create: true, data: { mcps: ['tools/other', 'tools/py'] } });
    run = await NativeRun.start({ agent: 'team/alice', service: env.service, policy: policies.autoAllow('*'), skipBrokenMounts: true });
    // crash-after-init fails its tools/list, so start skipped it; the other mount works
    expect(run.snapshot.mounts.map((m) => m.reference)).toEqual(['tools/other']);
    const other = toolAlias('tools/other', 'echo');
    const { results } = await run.executeBatch(batch(run, [{ callId: 'c', name: other, arguments: { message: 'still fine' } }]));
    expect(results[0]?.status).toBe('ok');
  });

  it('every call, denial and rejected batch produces an audit event without argument values', async () => {
    const events: AuditEvent[] = [];
    const r = await start(
      { mcps: ['tools/py'] },
      { audit: { record: (e) => void events.push(e) }, policy: policies.autoAllow(py('echo')) },
    );
    await r.executeBatch(
      batch(r, [
        { callId: 'c1', name: py('echo'), arguments: { message: 'SECRET-ARG-1' } },
        { callId: 'c2', name: py('withdraw'), arguments: { amount: 31.4159265 } },
      ]),
    );
    await r.executeBatch(batch(r, [{ callId: 'c3', name: 'nope', arguments: { message: 'SECRET-ARG-2' } }])).catch(() => undefined);
    const seen = events.map((e) => [
      e.type,
      e.type === 'tool_call'
        ? e.status
        : e.type === 'batch_rejected'
          ? e.reason
          : e.type === 'refresh'
            ? e.status
            : e.type === 'approval_requested'
              ? e.decidedBy
              : e.type === 'tools_loaded'
                ? e.loaded.length
                : 'calls' in e
                  ? e.calls
                  : e.type,
    ]);
    expect(seen).toHaveLength(5);
    expect(seen).toEqual(
      expect.arrayContaining([
        ['batch_started', 2],
        ['tool_call', 'ok'],
        ['tool_call', 'permission_denied'],
        ['batch_finished', 2],
        ['batch_rejected', 'unknown_tool'],
      ]),
    );
    expect(JSON.stringify(events)).not.toMatch(/SECRET-ARG|31\.4159265/);
  });
});

describe('G3, G4: who may call what, and which agents run natively', () => {
  it('G3: a registered but unmounted server is invisible and unreachable', async () => {
    const r = await start({ mcps: ['tools/py'] });
    const other = toolAlias('tools/other', 'echo');
    expect(r.tools().map((t) => t.name)).not.toContain(other);
    await expect(r.executeBatch(batch(r, [{ callId: 'c', name: other, arguments: { message: 'x' } }]))).rejects.toMatchObject({
      details: { reason: 'unknown_tool' },
    });
  });

  it('G4: every call passes the policy; with no allowing policy, calls are denied (default deny)', async () => {
    const r = await start({ mcps: ['tools/py'] }, { policy: policies.chain() });
    const { results } = await r.executeBatch(batch(r, [{ callId: 'c', name: py('echo'), arguments: { message: 'x' } }]));
    expect(results[0]).toMatchObject({ status: 'permission_denied' });
    expect(env.calls()).toEqual([]);
  });

  it('A7: an allowMcp binding option fails with option_removed', async () => {
    env = await setup();
    await env.service.write({ kind: 'agent', reference: 'team/alice', create: true, data: {} });
    await expect(
      NativeRun.start({ agent: 'team/alice', service: env.service, policy: policies.autoAllow('*'), allowMcp: true } as never),
    ).rejects.toMatchObject({ code: 'option_removed' });
  });

  it('a disabled agent or a harness agent is not run natively', async () => {
    env = await setup();
    await env.service.write({ kind: 'agent', reference: 'team/off', create: true, data: { enabled: false } });
    await env.service.write({ kind: 'agent', reference: 'team/h', create: true, data: { kind: 'harness' } });
    await expect(NativeRun.start({ agent: 'team/off', service: env.service, policy: policies.autoAllow('*') })).rejects.toMatchObject({
      code: 'forbidden',
    });
    await expect(NativeRun.start({ agent: 'team/h', service: env.service, policy: policies.autoAllow('*') })).rejects.toMatchObject({
      code: 'forbidden',
    });
  });
});
