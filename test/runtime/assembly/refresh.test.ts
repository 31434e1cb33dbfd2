/** Refresh at the batch boundary (F1–F4, F8) and fingerprinted resume (B2, F5–F7). */
import { afterEach, describe, expect, it } from 'vitest';
import { type AuditEvent, NativeRun, policies, toolAlias } from '../../../src/index.js';
import { batch, livingWithMarker, marker, py, pythonConfig, setup } from '../../support/index.js';
import type { StdioServerConfig } from '../../../src/config/mcp-config.js';

let env: Awaited<ReturnType<typeof setup>>;
const runs: NativeRun[] = [];
afterEach(async () => {
  await Promise.all(runs.splice(0).map((r) => r.close()));
  env?.tmp.cleanup();
});

async function manager(data: Record<string, unknown> = {}, audit?: AuditEvent[]) {
  env = await setup();
  await env.service.write({
    kind: 'agent',
    reference: 'team/boss',
    create: true,
    data: { role: 'manager', settings: { model: 'm1', provider: 'p1', basePrompt: 'be brief' }, ...data },
  });
  const run = await NativeRun.start({
    agent: 'team/boss',
    service: env.service,
    policy: policies.autoAllow('*'),
    ...(audit ? { audit: { record: (e) => void audit.push(e) } } : {}),
  });
  runs.push(run);
  return run;
}

const other = (tool: string) => toolAlias('tools/other', tool);

describe('F1–F4: refresh after the batch', () => {
  it('F1/F2: a self-mount through resource_write refreshes after the batch; calls inside the batch keep the old snapshot', async () => {
    const run = await manager();
    expect(run.snapshot.aliases).not.toContain(py('echo'));
    const { results, refresh } = await run.executeBatch(
      batch(run, [
        { callId: 'm', name: 'resource_write', arguments: { kind: 'agent', reference: 'team/boss', add: { mcps: ['tools/py'] } } },
      ]),
    );
    expect(results[0]?.status).toBe('ok');
    expect(refresh).toEqual({ status: 'applied', trigger: 'framework_change', message: expect.stringMatching(/tools reloaded/) });
    expect(run.snapshot.aliases).toContain(py('echo'));
    const next = await run.executeBatch(batch(run, [{ callId: 'e', name: py('echo'), arguments: { message: 'now' } }]));
    expect(next.results[0]?.status).toBe('ok');
  });

  it('F2: a tool mounted in this batch is not callable in the same batch (unknown to the old snapshot)', async () => {
    const run = await manager();
    await expect(
      run.executeBatch(
        batch(run, [
          { callId: 'm', name: 'resource_write', arguments: { kind: 'agent', reference: 'team/boss', add: { mcps: ['tools/py'] } } },
          { callId: 'e', name: py('echo'), arguments: { message: 'same batch' } },
        ]),
      ),
    ).rejects.toMatchObject({ details: { reason: 'unknown_tool' } });
    expect(run.snapshot.aliases).not.toContain(py('echo')); // nothing ran, so nothing changed
  });

  it('F1: removing a mount unloads its tools after the batch; F3: unused connections are closed', async () => {
    const mark = marker();
    const run = await manager();
    await env.service.write({ kind: 'mcp', reference: 'tools/marked', create: true, data: { mcpServers: { m: pythonConfig({ mark }) } } });
    await run.executeBatch(
      batch(run, [
        {
          callId: 'a',
          name: 'resource_write',
          arguments: { kind: 'agent', reference: 'team/boss', add: { mcps: ['tools/marked', 'tools/other'] } },
        },
      ]),
    );
    expect(livingWithMarker(mark)).toHaveLength(1);
    const { refresh } = await run.executeBatch(
      batch(run, [
        { callId: 'r', name: 'resource_write', arguments: { kind: 'agent', reference: 'team/boss', remove: { mcps: ['tools/marked'] } } },
      ]),
    );
    expect(refresh?.status).toBe('applied');
    expect(run.snapshot.mounts.map((m) => m.reference)).toEqual(['tools/other']);
    expect(livingWithMarker(mark)).toEqual([]);
    await expect(
      run.executeBatch(batch(run, [{ callId: 'x', name: toolAlias('tools/marked', 'echo'), arguments: { message: 'gone' } }])),
    ).rejects.toMatchObject({ details: { reason: 'unknown_tool' } });
  });

  it('F3: a refresh reuses the live connection of unchanged mounts and reconnects only what changed', async () => {
    const keep = marker();
    const run = await manager();
    await env.service.write({
      kind: 'mcp',
      reference: 'tools/keep',
      create: true,
      data: { mcpServers: { k: pythonConfig({ mark: keep }) } },
    });
    await run.executeBatch(
      batch(run, [
        { callId: 'a', name: 'resource_write', arguments: { kind: 'agent', reference: 'team/boss', add: { mcps: ['tools/keep'] } } },
      ]),
    );
    const [pidBefore] = livingWithMarker(keep);
    await run.executeBatch(
      batch(run, [
        { callId: 'b', name: 'resource_write', arguments: { kind: 'agent', reference: 'team/boss', add: { mcps: ['tools/other'] } } },
      ]),
    );
    expect(livingWithMarker(keep)).toEqual([pidBefore]);
  });

  it('F4: a mount whose server is broken: configuration saved, but loading failed; the old tools keep working; no retry', async () => {
    const audit: AuditEvent[] = [];
    const run = await manager({ mcps: ['tools/py'] }, audit);
    await env.service.write({
      kind: 'mcp',
      reference: 'tools/broken',
      create: true,
      data: { mcpServers: { b: pythonConfig({ mode: 'exit-now' }) } },
    });
    const { results, refresh } = await run.executeBatch(
      batch(run, [
        { callId: 'a', name: 'resource_write', arguments: { kind: 'agent', reference: 'team/boss', add: { mcps: ['tools/broken'] } } },
      ]),
    );
    expect(results[0]?.status).toBe('ok'); // the write itself succeeded
    expect(refresh).toEqual({
      status: 'failed',
      trigger: 'framework_change',
      message: expect.stringMatching(/^configuration saved, but loading failed: mount "tools\/broken" failed to load/),
    });
    expect(audit.filter((e) => e.type === 'refresh')).toEqual([
      expect.objectContaining({ status: 'failed', code: 'exited_early', message: refresh?.message }),
    ]);
    expect((await env.service.read({ kind: 'agent', reference: 'team/boss' })).data).toMatchObject({ mcps: ['tools/py', 'tools/broken'] });
    const next = await run.executeBatch(batch(run, [{ callId: 'e', name: py('echo'), arguments: { message: 'old tools still work' } }]));
    expect(next.results[0]?.status).toBe('ok');
    expect(next.refresh).toBeUndefined(); // F4: no automatic retry
  });

  it('F1: changing a mounted mcp resource refreshes; changing one that is not mounted does not', async () => {
    const run = await manager({ mcps: ['tools/py'] });
    const stored = (await env.service.read({ kind: 'mcp', reference: 'tools/py' })).data as {
      mcpServers: { py: StdioServerConfig & { args: string[] } };
    };
    const narrower = { mcpServers: { py: { ...stored.mcpServers.py, args: [...stored.mcpServers.py.args, '--echo-max', '5'] } } };
    const unrelated = await run.executeBatch(
      batch(run, [
        { callId: 'u', name: 'resource_write', arguments: { kind: 'agent', reference: 'team/elsewhere', create: true, data: {} } },
      ]),
    );
    expect(unrelated.refresh).toBeUndefined();
    const before = run.snapshot.fingerprint;
    const changed = await run.executeBatch(
      batch(run, [{ callId: 'c', name: 'resource_write', arguments: { kind: 'mcp', reference: 'tools/py', data: narrower } }]),
    );
    expect(changed.refresh?.status).toBe('applied');
    expect(run.snapshot.fingerprint).not.toBe(before);
    const { results } = await run.executeBatch(batch(run, [{ callId: 'e', name: py('echo'), arguments: { message: 'longer than five' } }]));
    expect(results[0]?.status).toBe('invalid_arguments');
  });

  it('F8: writes by others (another agent, the CLI, host code) never refresh a running run; new runs load them', async () => {
    const run = await manager({ mcps: ['tools/py'] });
    await env.service.write({ kind: 'agent', reference: 'team/boss', add: { mcps: ['tools/other'] } }); // host code / CLI
    const { refresh } = await run.executeBatch(batch(run, [{ callId: 'e', name: py('echo'), arguments: { message: 'x' } }]));
    expect(refresh).toBeUndefined();
    expect(run.snapshot.aliases).not.toContain(other('echo'));
    const fresh = await NativeRun.start({ agent: 'team/boss', service: env.service, policy: policies.autoAllow('*') });
    runs.push(fresh);
    expect(fresh.snapshot.aliases).toContain(other('echo'));
  });
});

describe('B2, F5–F7: suspend and resume', () => {
  it('F6: a run suspended after a successful refresh resumes (the refresh updated its fingerprint)', async () => {
    const run = await manager();
    await run.executeBatch(
      batch(run, [
        { callId: 'a', name: 'resource_write', arguments: { kind: 'agent', reference: 'team/boss', add: { mcps: ['tools/py'] } } },
      ]),
    );
    const state = JSON.parse(JSON.stringify(await run.suspend()));
    await run.close();
    const resumed = await NativeRun.resume(state, { service: env.service, policy: policies.autoAllow('*') });
    runs.push(resumed);
    expect(resumed.id).toBe(run.id);
    expect(resumed.snapshot.fingerprint).toBe(state.fingerprint);
    expect(resumed.snapshot.aliases).toContain(py('echo'));
  });

  it.each([
    ['model', { model: 'm2' }],
    ['provider', { provider: 'p2' }],
    ['basePrompt', { basePrompt: 'be verbose' }],
    ['permissions', { permissions: { shell: true } }],
    ['delegation', { delegation: { to: ['team/x'] } }],
  ])('F7: changing %s after the run started makes resume fail with fingerprint_mismatch (settings)', async (_field, change) => {
    const run = await manager();
    const state = await run.suspend();
    await env.service.write({
      kind: 'agent',
      reference: 'team/boss',
      data: { settings: { model: 'm1', provider: 'p1', basePrompt: 'be brief', ...change } },
    });
    await expect(NativeRun.resume(state, { service: env.service, policy: policies.autoAllow('*') })).rejects.toMatchObject({
      code: 'fingerprint_mismatch',
      details: { part: 'settings' },
    });
  });

  it('F7: a refresh never adopts new settings: they stay as the run snapshot has them', async () => {
    const run = await manager();
    const before = run.snapshot.fingerprint;
    await env.service.write({ kind: 'agent', reference: 'team/boss', data: { settings: { model: 'm9' } } });
    await run.executeBatch(
      batch(run, [
        { callId: 'a', name: 'resource_write', arguments: { kind: 'agent', reference: 'team/boss', add: { mcps: ['tools/py'] } } },
      ]),
    );
    const fresh = await NativeRun.start({ agent: 'team/boss', service: env.service, policy: policies.autoAllow('*') });
    runs.push(fresh);
    expect(run.snapshot.fingerprint).not.toBe(before); // mounts changed
    expect(run.snapshot.fingerprint).not.toBe(fresh.snapshot.fingerprint); // settings did not follow
  });

  it('B2: a changed tool schema of a mount makes resume fail with fingerprint_mismatch (mounts)', async () => {
    const run = await manager({ mcps: ['tools/py'] });
    const state = await run.suspend();
    const stored = (await env.service.read({ kind: 'mcp', reference: 'tools/py' })).data as {
      mcpServers: { py: StdioServerConfig & { args: string[] } };
    };
    await env.service.write({
      kind: 'mcp',
      reference: 'tools/py',
      data: { mcpServers: { py: { ...stored.mcpServers.py, args: [...stored.mcpServers.py.args, '--echo-max', '9'] } } },
    });
    await expect(NativeRun.resume(state, { service: env.service, policy: policies.autoAllow('*') })).rejects.toMatchObject({
      code: 'fingerprint_mismatch',
      details: { part: 'mounts' },
    });
  });

  it('F5: reordering the mounts changes neither aliases nor the fingerprint', async () => {
    const run = await manager({ mcps: ['tools/py', 'tools/other'] });
    const state = await run.suspend();
    await env.service.write({ kind: 'agent', reference: 'team/boss', data: { mcps: ['tools/other', 'tools/py'] } });
    const resumed = await NativeRun.resume(state, { service: env.service, policy: policies.autoAllow('*') });
    runs.push(resumed);
    expect([...resumed.snapshot.aliases].sort()).toEqual([...run.snapshot.aliases].sort());
  });
});
