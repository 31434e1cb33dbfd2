/**
 * storeConformanceSuite: one contract test for every ResourceStore adapter,
 * ours and third parties'. It registers its cases through the test function
 * you pass (vitest's `it`, node:test's `test`, jest's `test`), and asserts with
 * node:assert, so it needs no particular framework.
 *
 * ```ts
 * import { it } from 'vitest';
 * import { storeConformanceSuite } from 'agt-mcp/testing';
 * storeConformanceSuite(() => new MyStore(), { test: it });
 * ```
 */
import assert from 'node:assert/strict';
import { isAgtError } from '../errors.js';
import type { ResourceStore } from '../resources/store.js';

/** Registers one test case: a name and an async body. */
export type TestFunction = (name: string, fn: () => Promise<void>) => unknown;

/** Options of {@link storeConformanceSuite}. */
export interface StoreConformanceOptions {
  /** The test function of your framework. */
  test: TestFunction;
  /** Prefix of every case name. Default 'ResourceStore'. */
  label?: string;
  /** Called with each store after its case, e.g. to delete files. `close()` is called first if present. */
  cleanup?: (store: ResourceStore) => unknown;
  /** How many concurrent writers the race cases use. Default 20. */
  contenders?: number;
}

/**
 * The case registrar both store suites use: each case gets a fresh store from
 * `factory`, closed and cleaned up after the body whatever its outcome.
 */
export function caseRegistrar<S extends { close?(): Promise<void> }>(
  factory: () => S | Promise<S>,
  options: { test: TestFunction; cleanup?: (store: S) => unknown },
  label: string,
): (name: string, body: (store: S) => Promise<void>) => void {
  return (name, body) => {
    options.test(`${label}: ${name}`, async () => {
      const store = await factory();
      try {
        await body(store);
      } finally {
        await store.close?.();
        await options.cleanup?.(store);
      }
    });
  };
}

/** Asserts that `promise` fails with an AgtError of `code`, and runs `check` on its details (the store suites' one check of a failure). */
export async function expectCode(
  promise: Promise<unknown>,
  code: string,
  check: (details: Record<string, unknown> | undefined) => void = () => undefined,
): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(isAgtError(error), 'fails with an AgtError');
    assert.equal(error.code, code);
    check(error.details);
    return true;
  });
}

async function expectConflict(promise: Promise<unknown>, currentRevision: number | null): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(isAgtError(error), 'a failed compare-and-set throws an AgtError');
    assert.equal(error.code, 'revision_conflict');
    assert.equal(error.details?.currentRevision, currentRevision);
    return true;
  });
}

/** Registers the ResourceStore contract cases for stores made by `factory` (a fresh, empty store per case). */
export function storeConformanceSuite(factory: () => ResourceStore | Promise<ResourceStore>, options: StoreConformanceOptions): void {
  const label = options.label ?? 'ResourceStore';
  const contenders = options.contenders ?? 20;
  const run = caseRegistrar(factory, options, label);

  run('get of a missing record is undefined', async (store) => {
    assert.equal(await store.get('mcp', 'a/missing'), undefined);
  });

  run('create (expectedRevision null) gives revision 1, timestamps, and a copy of the data', async (store) => {
    const data = { mcpServers: { s: { command: 'node', args: ['x'], cwd: '/srv' } }, note: 'ünïcode ✓' };
    const created = await store.put({ kind: 'mcp', reference: 'a/one', data }, { expectedRevision: null });
    assert.equal(created.revision, 1);
    assert.equal(created.kind, 'mcp');
    assert.equal(created.reference, 'a/one');
    assert.deepEqual(created.data, data);
    assert.ok(!Number.isNaN(Date.parse(created.createdAt)) && created.createdAt === created.updatedAt);
    data.note = 'changed after put';
    (created.data as { note: string }).note = 'changed the returned copy';
    const read = await store.get('mcp', 'a/one');
    assert.equal((read?.data as { note: string }).note, 'ünïcode ✓');
  });

  run('create of an existing record fails with revision_conflict and writes nothing', async (store) => {
    await store.put({ kind: 'agent', reference: 'a/x', data: { v: 1 } }, { expectedRevision: null });
    await expectConflict(store.put({ kind: 'agent', reference: 'a/x', data: { v: 2 } }, { expectedRevision: null }), 1);
    assert.deepEqual((await store.get('agent', 'a/x'))?.data, { v: 1 });
  });

  run('update with the current revision increments it and keeps createdAt', async (store) => {
    const first = await store.put({ kind: 'skill', reference: 'a/s', data: { v: 1 } }, { expectedRevision: null });
    const second = await store.put({ kind: 'skill', reference: 'a/s', data: { v: 2 } }, { expectedRevision: 1 });
    assert.equal(second.revision, 2);
    assert.equal(second.createdAt, first.createdAt);
    assert.ok(second.updatedAt >= first.updatedAt);
    assert.deepEqual((await store.get('skill', 'a/s'))?.data, { v: 2 });
  });

  run('update with a stale revision, or of a missing record, fails and writes nothing', async (store) => {
    await store.put({ kind: 'skill', reference: 'a/s', data: { v: 1 } }, { expectedRevision: null });
    await store.put({ kind: 'skill', reference: 'a/s', data: { v: 2 } }, { expectedRevision: 1 });
    await expectConflict(store.put({ kind: 'skill', reference: 'a/s', data: { v: 3 } }, { expectedRevision: 1 }), 2);
    await expectConflict(store.put({ kind: 'skill', reference: 'a/none', data: {} }, { expectedRevision: 1 }), null);
    assert.deepEqual((await store.get('skill', 'a/s'))?.data, { v: 2 });
    assert.equal(await store.get('skill', 'a/none'), undefined);
  });

  run('a put without expectedRevision (or with a bad one) is invalid_input and writes nothing, as in RunStore', async (store) => {
    for (const options of [undefined, {}, { expectedRevision: 0 }, { expectedRevision: 1.5 }, { expectedRevision: '1' }]) {
      await assert.rejects(
        (store.put as (r: unknown, o?: unknown) => Promise<unknown>)({ kind: 'mcp', reference: 'a/cas', data: {} }, options),
        (error: unknown) => {
          assert.ok(isAgtError(error), 'fails with an AgtError');
          assert.equal(error.code, 'invalid_input');
          assert.equal(error.details?.field, 'expectedRevision');
          return true;
        },
      );
    }
    assert.equal(await store.get('mcp', 'a/cas'), undefined);
  });

  run('kinds are separate namespaces', async (store) => {
    await store.put({ kind: 'mcp', reference: 'same/ref', data: { k: 'mcp' } }, { expectedRevision: null });
    await store.put({ kind: 'agent', reference: 'same/ref', data: { k: 'agent' } }, { expectedRevision: null });
    assert.deepEqual((await store.get('mcp', 'same/ref'))?.data, { k: 'mcp' });
    assert.deepEqual((await store.get('agent', 'same/ref'))?.data, { k: 'agent' });
    assert.equal((await store.list('skill')).length, 0);
  });

  run('list is ordered by reference and filters by category', async (store) => {
    for (const ref of ['b/two', 'a/zeta', 'a/alpha', 'b/one', 'a.b/x', 'a-b/x']) {
      await store.put({ kind: 'mcp', reference: ref, data: { ref } }, { expectedRevision: null });
    }
    await store.put({ kind: 'agent', reference: 'a/agent', data: {} }, { expectedRevision: null });
    assert.deepEqual(
      (await store.list('mcp')).map((r) => r.reference),
      ['a-b/x', 'a.b/x', 'a/alpha', 'a/zeta', 'b/one', 'b/two'],
    );
    assert.deepEqual(
      (await store.list('mcp', { category: 'a' })).map((r) => r.reference),
      ['a/alpha', 'a/zeta'],
    );
    assert.deepEqual(
      (await store.list('mcp', { category: 'c' })).map((r) => r.reference),
      [],
    );
    const [first] = await store.list('mcp', { category: 'b' });
    assert.equal(first?.revision, 1);
    assert.deepEqual(first?.data, { ref: 'b/one' });
  });

  run('delete removes, reports absence, and honours expectedRevision', async (store) => {
    await store.put({ kind: 'mcp', reference: 'a/d', data: {} }, { expectedRevision: null });
    await store.put({ kind: 'mcp', reference: 'a/d', data: { v: 2 } }, { expectedRevision: 1 });
    await expectConflict(store.delete('mcp', 'a/d', { expectedRevision: 1 }), 2);
    assert.ok(await store.get('mcp', 'a/d'));
    assert.equal(await store.delete('mcp', 'a/d', { expectedRevision: 2 }), true);
    assert.equal(await store.get('mcp', 'a/d'), undefined);
    assert.equal(await store.delete('mcp', 'a/d'), false);
    await expectConflict(store.delete('mcp', 'a/d', { expectedRevision: 2 }), null);
    const again = await store.put({ kind: 'mcp', reference: 'a/d', data: {} }, { expectedRevision: null });
    assert.equal(again.revision, 1, 'a re-created record starts again at revision 1');
  });

  run(`create-if-absent race: of ${contenders} concurrent creates exactly one wins`, async (store) => {
    const results = await Promise.allSettled(
      Array.from({ length: contenders }, (_, i) =>
        store.put({ kind: 'agent', reference: 'race/create', data: { i } }, { expectedRevision: null }),
      ),
    );
    const won = results.filter((r) => r.status === 'fulfilled');
    assert.equal(won.length, 1);
    for (const r of results) if (r.status === 'rejected') assert.equal((r.reason as { code?: string }).code, 'revision_conflict');
    const winner = (won[0] as PromiseFulfilledResult<{ data: unknown }>).value.data;
    assert.deepEqual((await store.get('agent', 'race/create'))?.data, winner);
  });

  run(`compare-and-set race: of ${contenders} concurrent updates of one revision exactly one wins`, async (store) => {
    await store.put({ kind: 'agent', reference: 'race/cas', data: { i: -1 } }, { expectedRevision: null });
    const results = await Promise.allSettled(
      Array.from({ length: contenders }, (_, i) =>
        store.put({ kind: 'agent', reference: 'race/cas', data: { i } }, { expectedRevision: 1 }),
      ),
    );
    assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
    assert.equal((await store.get('agent', 'race/cas'))?.revision, 2);
  });

  run('read-modify-write loops with retry lose no update', async (store) => {
    await store.put({ kind: 'agent', reference: 'race/rmw', data: { items: [] as number[] } }, { expectedRevision: null });
    const add = async (n: number): Promise<void> => {
      for (;;) {
        const current = await store.get('agent', 'race/rmw');
        assert.ok(current);
        const items = [...(current.data as { items: number[] }).items, n];
        try {
          await store.put({ kind: 'agent', reference: 'race/rmw', data: { items } }, { expectedRevision: current.revision });
          return;
        } catch (error) {
          if (!isAgtError(error) || error.code !== 'revision_conflict') throw error;
        }
      }
    };
    await Promise.all(Array.from({ length: contenders }, (_, i) => add(i)));
    const final = await store.get('agent', 'race/rmw');
    assert.deepEqual(
      [...(final?.data as { items: number[] }).items].sort((a, b) => a - b),
      Array.from({ length: contenders }, (_, i) => i),
    );
    assert.equal(final?.revision, contenders + 1);
  });
}
