/**
 * list_changed from a mounted server marks the run stale; the next batch
 * boundary refreshes that mount with the same atomic-swap rules as a
 * framework-write refresh (F1–F4, F6, F8), never mid-batch (F2).
 */
import { describe, expect, it } from 'vitest';
import { type AuditEvent, toolAlias } from '../../../src/index.js';
import { batch, py, pythonConfig, runFixture } from '../../support/index.js';

const fx = runFixture(['list-changed', 'resources', 'prompts']);
const start = (audit?: AuditEvent[], mcps = ['tools/py']) =>
  fx.start(audit ? { audit: { record: (e) => void audit.push(e) } } : {}, { mcps });

const toolLists = () => fx.env.serverEvents().filter((e) => e.method === 'tools/list').length;

describe('list_changed refresh', () => {
  it('F1/F2: a tool the server adds is callable after the batch boundary, not inside the batch that announced it', async () => {
    const r = await start();
    const before = r.snapshot.fingerprint;
    const { results, refresh } = await r.executeBatch(batch(r, [{ callId: 'g', name: py('grow'), arguments: { name: 'fresh' } }]));
    expect(results[0]?.status).toBe('ok');
    expect(refresh).toEqual({
      status: 'applied',
      trigger: 'list_changed',
      message: expect.stringMatching(/^tools reloaded after a list change announced by tools\/py \(tools\)/),
    });
    expect(r.snapshot.aliases).toContain(py('fresh'));
    expect(r.snapshot.fingerprint).not.toBe(before); // F6: the refresh updated the fingerprint
    expect(r.staleMounts).toEqual([]);
    const next = await r.executeBatch(batch(r, [{ callId: 'f', name: py('fresh'), arguments: {} }]));
    expect(next.results[0]?.status).toBe('ok');
    expect(next.refresh).toBeUndefined();
  });

  it('F2: calls in the batch that announced a change use the old snapshot', async () => {
    const r = await start();
    await expect(
      r.executeBatch(
        batch(r, [
          { callId: 'g', name: py('grow'), arguments: { name: 'later' } },
          { callId: 'l', name: py('later'), arguments: {} },
        ]),
      ),
    ).rejects.toMatchObject({ details: { reason: 'unknown_tool' } }); // stage 1 judged the batch against the snapshot it started with
  });

  it('a storm of 1,000 list_changed causes exactly one refresh (one tools/list) at the boundary', async () => {
    const audit: AuditEvent[] = [];
    const r = await start(audit);
    const listsBefore = toolLists();
    const { refresh } = await r.executeBatch(batch(r, [{ callId: 's', name: py('storm'), arguments: { n: 1000 } }]));
    expect(refresh?.status).toBe('applied');
    expect(toolLists()).toBe(listsBefore + 1);
    expect(audit.filter((e) => e.type === 'refresh')).toEqual([
      expect.objectContaining({ trigger: 'list_changed', mounts: ['tools/py'], status: 'applied' }),
    ]);
    const quiet = await r.executeBatch(batch(r, [{ callId: 'e', name: py('echo'), arguments: { message: 'calm' } }]));
    expect(quiet.refresh).toBeUndefined();
    expect(toolLists()).toBe(listsBefore + 1);
  });

  it('F1: resources and prompts list_changed mark the mount stale too; the message names what changed', async () => {
    const r = await start();
    const { refresh } = await r.executeBatch(batch(r, [{ callId: 't', name: py('touch'), arguments: {} }]));
    expect(refresh?.message).toMatch(/tools\/py \(resources, prompts\)/);
    expect((await r.listResources('tools/py')).length).toBe(3);
    expect((await r.listPrompts('tools/py')).map((p) => p.name)).toEqual(['greet', 'plain']);
  });

  it('F8: a list-change refresh never picks up writes by others; only the announcing mount is listed again', async () => {
    const r = await start(undefined, ['tools/py', 'tools/other']);
    const aliases = r.snapshot.aliases;
    // Someone else edits the other mount's config and the agent's mounts meanwhile.
    await fx.env.service.write({
      kind: 'mcp',
      reference: 'tools/other',
      data: { mcpServers: { other: pythonConfig({ extra: ['--name', 'edited', '--echo-max', '5'] }) } },
    });
    await fx.env.service.write({ kind: 'agent', reference: 'team/alice', data: { mcps: [] } });
    const { refresh } = await r.executeBatch(batch(r, [{ callId: 'g', name: py('grow'), arguments: { name: 'extra' } }]));
    expect(refresh?.status).toBe('applied');
    expect(r.snapshot.mounts.map((m) => m.reference)).toEqual(['tools/other', 'tools/py']);
    expect(r.snapshot.aliases).toEqual(expect.arrayContaining([...aliases, py('extra')]));
    const other = await r.executeBatch(
      batch(r, [{ callId: 'o', name: toolAlias('tools/other', 'echo'), arguments: { message: 'longer than five' } }]),
    );
    expect(other.results[0]?.status).toBe('ok'); // still the old config's schema (maxLength 200)
  });

  it('F4: when listing again fails the old tools stay and the model and audit are told; no retry', async () => {
    const audit: AuditEvent[] = [];
    const r = await start(audit);
    const old = r.snapshot;
    const { results, refresh } = await r.executeBatch(batch(r, [{ callId: 's', name: py('sabotage'), arguments: {} }]));
    expect(results[0]?.status).toBe('ok');
    expect(refresh).toEqual({
      status: 'failed',
      trigger: 'list_changed',
      message: expect.stringMatching(
        /^tools\/py \(tools\) announced a list change, but reloading failed: .*tools\/list.*; the previous tools stay$/,
      ),
    });
    expect(r.snapshot).toBe(old);
    expect(audit.filter((e) => e.type === 'refresh')).toEqual([expect.objectContaining({ status: 'failed', code: 'protocol_error' })]);
    const lists = toolLists();
    const next = await r.executeBatch(batch(r, [{ callId: 'e', name: py('echo'), arguments: { message: 'old tools work' } }]));
    expect(next.results[0]?.status).toBe('ok');
    expect(next.refresh).toBeUndefined(); // no automatic retry
    expect(toolLists()).toBe(lists);
  });
});
