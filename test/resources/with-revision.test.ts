/**
 * service.withRevision: a read-modify-write under compare-and-set
 * (A4) that retries for the caller. Several services on one SQLite file race
 * to increment one counter: every increment lands once (no lost update, no
 * double), conflicts were met and retried; the bound, a change of nothing and
 * a cancel each do what they say.
 */
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isAgtError, MemoryStore, ResourceService, withRevision } from '../../src/index.js';
import { SqliteStore } from '../../src/storage/sqlite.js';
import { failure, tempDir } from '../support/index.js';

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir('agt-with-revision-');
});
afterEach(() => tmp.cleanup());

const counter = { kind: 'agent', reference: 'team/counter' } as const;
const countOf = (data: unknown) => Number((data as { name?: string }).name ?? '0');

describe('A4: service.withRevision', () => {
  it('A4: 4 services on one SQLite file, 25 increments each, at once: the counter is 100; conflicts were retried, none lost', async () => {
    const file = path.join(tmp.dir, 'agt.db');
    const stores = Array.from({ length: 4 }, () => new SqliteStore({ path: file }));
    const services = stores.map((store) => new ResourceService({ store }));
    try {
      await services[0]!.write({ ...counter, create: true, data: { name: '0' } });
      const attempts: number[] = [];
      await Promise.all(
        services.map(async (service) => {
          for (let i = 0; i < 25; i++) {
            const done = await service.withRevision(counter, (record) => ({ data: { name: String(countOf(record.data) + 1) } }));
            attempts.push(done.attempts);
          }
        }),
      );
      const final = await services[0]!.read(counter);
      expect(countOf(final.data)).toBe(100);
      expect(final.revision).toBe(101); // one write per increment: nothing written twice
      expect(attempts).toHaveLength(100);
      expect(Math.max(...attempts)).toBeGreaterThan(1); // the race was real: some increments read a stale record first
    } finally {
      await Promise.all(stores.map((s) => s.close()));
    }
  });

  it('A4: at its bound it throws the last revision_conflict with the attempts; nothing of the stale change is written', async () => {
    const service = new ResourceService({ store: new MemoryStore() });
    await service.write({ ...counter, create: true, data: { name: '0' } });
    let calls = 0;
    const error = await failure(
      service.withRevision(
        counter,
        async (record) => {
          calls += 1;
          await service.write({ ...counter, data: { name: 'someone else' } }); // another writer gets in first, every time
          return { data: { name: String(countOf(record.data) + 1) } };
        },
        { maxAttempts: 3, baseDelayMs: 1 },
      ),
    );
    expect(error).toMatchObject({ code: 'revision_conflict', details: { attempts: 3 } });
    expect(calls).toBe(3);
    expect((await service.read(counter)).data).toMatchObject({ name: 'someone else' });
  });

  it('A4: withRevision(service, target, update, { attempts, backoffMs }) from the root: the same loop, bounded by attempts', async () => {
    const service = new ResourceService({ store: new MemoryStore() });
    await service.write({ ...counter, create: true, data: { name: '0' } });
    let calls = 0;
    const error = await failure(
      withRevision(
        service,
        counter,
        async (record) => {
          calls += 1;
          await service.write({ ...counter, data: { name: 'someone else' } });
          return { data: { name: String(countOf(record.data) + 1) } };
        },
        { attempts: 2, backoffMs: 1 },
      ),
    );
    expect(error).toMatchObject({ code: 'revision_conflict', details: { attempts: 2 } });
    expect(calls).toBe(2);
    const done = await withRevision(service, counter, () => ({ data: { name: 'x1' } }), { attempts: 1 });
    expect(done).toMatchObject({ written: true, attempts: 1, record: { revision: 4, data: { name: 'x1' } } });
    expect(await failure(withRevision(service, counter, () => undefined, { attempts: 0 }))).toMatchObject({
      code: 'invalid_input',
      details: { field: 'attempts' },
    });
  });

  it('A4: an update that returns undefined writes nothing; a cancelled one stops between attempts', async () => {
    const service = new ResourceService({ store: new MemoryStore() });
    await service.write({ ...counter, create: true, data: { name: '7' } });
    const same = await service.withRevision(counter, () => undefined);
    expect(same).toMatchObject({ written: false, attempts: 1, record: { revision: 1 } });
    const controller = new AbortController();
    const error = await service
      .withRevision(
        counter,
        async () => {
          await service.write({ ...counter, data: { name: 'moved' } });
          controller.abort();
          return { data: { name: 'late' } };
        },
        { signal: controller.signal },
      )
      .catch((e: unknown) => e);
    expect(isAgtError(error) && error.code).toBe('cancelled');
    expect((await service.read(counter)).data).toMatchObject({ name: 'moved' });
  });
});
