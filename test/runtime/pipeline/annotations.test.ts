/** Tool annotations reach permission policies; annotation-based helpers (G4). */
import { describe, expect, it } from 'vitest';
import { type PermissionPolicy, type PermissionRequest, policies } from '../../../src/index.js';
import { batch, py, runFixture } from '../../support/index.js';

const fx = runFixture();
const start = (policy: PermissionPolicy, data: Record<string, unknown> = {}) => fx.start({ policy }, data);

const calls = () => [
  { callId: 'echo', name: py('echo'), arguments: { message: 'hi' } }, // readOnlyHint: true
  { callId: 'add', name: py('add'), arguments: { a: 1, b: 2 } }, // readOnlyHint, idempotentHint
  { callId: 'withdraw', name: py('withdraw'), arguments: { amount: 1 } }, // destructiveHint: true
  { callId: 'where', name: py('whereami'), arguments: {} }, // no annotations: MCP defaults
];
const outcome = (results: { callId: string; status: string }[]) => Object.fromEntries(results.map((r) => [r.callId, r.status]));

describe('annotations and policies', () => {
  it('G4: the policy sees the tool annotations exactly as the server declared them, frozen', async () => {
    const seen: PermissionRequest[] = [];
    const r = await start({
      review: async (request) => {
        seen.push(request);
        return { decision: 'allow', by: 'auto' };
      },
    });
    await r.executeBatch(batch(r, calls()));
    const byCall = Object.fromEntries(seen.map((s) => [s.callId, s.annotations]));
    expect(byCall.withdraw).toEqual({ readOnlyHint: false, destructiveHint: true, openWorldHint: false });
    expect(byCall.where).toBeUndefined();
    expect(Object.isFrozen(byCall.echo)).toBe(true);
  });

  it('G4: autoAllow({ readOnly: true }) allows read-only tools and leaves the rest to the next policy (default deny)', async () => {
    const r = await start(policies.chain(policies.autoAllow({ readOnly: true })));
    const { results } = await r.executeBatch(batch(r, calls()));
    expect(outcome(results)).toEqual({ echo: 'ok', add: 'ok', withdraw: 'permission_denied', where: 'permission_denied' });
    expect(
      fx.env
        .calls()
        .map((c) => c.tool)
        .sort(),
    ).toEqual(['add', 'echo']);
  });

  it('G4: deny({ destructive: true }) first, then a human for the rest; missing hints take the MCP defaults', async () => {
    const asked: string[] = [];
    const r = await start(
      policies.chain(
        policies.deny({ destructive: true }, 'destructive tools need a person at the desk'),
        policies.human(async (req) => {
          asked.push(req.callId);
          return true;
        }),
      ),
    );
    const { results } = await r.executeBatch(batch(r, calls()));
    // whereami declares nothing: readOnlyHint false, destructiveHint true by default, so it is denied too.
    expect(outcome(results)).toEqual({ echo: 'ok', add: 'ok', withdraw: 'permission_denied', where: 'permission_denied' });
    expect(asked.sort()).toEqual(['add', 'echo']);
    expect(results.find((x) => x.callId === 'withdraw')).toMatchObject({
      error: { message: 'destructive tools need a person at the desk' },
    });
  });

  it('G4: an annotation match can be limited to trusted mounts, and never matches framework tools', async () => {
    const r = await start(policies.autoAllow({ readOnly: true, mounts: ['tools/other'] }), { role: 'manager' });
    const { results } = await r.executeBatch(
      batch(r, [calls()[0]!, { callId: 'read', name: 'resource_read', arguments: { kind: 'mcp', reference: 'tools/py' } }]),
    );
    expect(outcome(results)).toEqual({ echo: 'permission_denied', read: 'permission_denied' });
  });

  it('G4: a misspelled annotation match (readonly) is invalid_input naming the closest key, never an allow of every call', () => {
    expect(() => policies.autoAllow({ readonly: true } as never)).toThrow(
      expect.objectContaining({ code: 'invalid_input', details: { key: 'readonly', closest: 'readOnly' } }),
    );
    expect(() => policies.approval([/x/, { destrutive: true } as never])).toThrow(expect.objectContaining({ code: 'invalid_input' }));
    expect(() => policies.deny({ readOnly: 'yes' } as never)).toThrow(
      expect.objectContaining({ details: { field: 'policies.deny.readOnly' } }),
    );
    expect(() => policies.autoAllow({ mounts: 'tools/py' } as never)).toThrow(
      expect.objectContaining({ details: { field: 'policies.autoAllow.mounts' } }),
    );
  });

  it('G4: toolSearch.pinned is checked the same way before the run starts', async () => {
    await expect(fx.start({ policy: policies.autoAllow('*'), toolSearch: { pinned: { readonyl: true } as never } })).rejects.toMatchObject({
      code: 'invalid_input',
      details: { key: 'readonyl', closest: 'readOnly' },
    });
  });
});
