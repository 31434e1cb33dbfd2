/** An in-process ResourceStore: the default for tests and embedded hosts. */
import { checkExpectedRevision, expectedRevisionOf } from './conflict.js';
import type { ResourceStore, ResourceWrite } from './store.js';
import type { ResourceKind, ResourceRecord } from './types.js';

/** A ResourceStore held in memory; records are copied in and out. */
export class MemoryStore implements ResourceStore {
  readonly #records = new Map<string, ResourceRecord>();

  /** {@inheritDoc ResourceStore.get} */
  async get(kind: ResourceKind, reference: string): Promise<ResourceRecord | undefined> {
    const record = this.#records.get(key(kind, reference));
    return record === undefined ? undefined : structuredClone(record);
  }

  /** {@inheritDoc ResourceStore.list} */
  async list(kind: ResourceKind, options: { category?: string } = {}): Promise<ResourceRecord[]> {
    const prefix = options.category === undefined ? undefined : `${options.category}/`;
    return [...this.#records.values()]
      .filter((r) => r.kind === kind && (prefix === undefined || r.reference.startsWith(prefix)))
      .sort((a, b) => (a.reference < b.reference ? -1 : a.reference > b.reference ? 1 : 0))
      .map((r) => structuredClone(r));
  }

  /** {@inheritDoc ResourceStore.put} */
  async put(record: ResourceWrite, options: { expectedRevision: number | null }): Promise<ResourceRecord> {
    const expected = expectedRevisionOf(options, 'ResourceStore.put');
    const k = key(record.kind, record.reference);
    const current = this.#records.get(k);
    const currentRevision = current?.revision ?? null;
    checkExpectedRevision(record, expected, currentRevision);
    const now = new Date().toISOString();
    const next: ResourceRecord = {
      kind: record.kind,
      reference: record.reference,
      revision: (currentRevision ?? 0) + 1,
      data: structuredClone(record.data),
      createdAt: current?.createdAt ?? now,
      updatedAt: now,
    };
    this.#records.set(k, next);
    return structuredClone(next);
  }

  /** {@inheritDoc ResourceStore.delete} */
  async delete(kind: ResourceKind, reference: string, options: { expectedRevision?: number } = {}): Promise<boolean> {
    const k = key(kind, reference);
    const current = this.#records.get(k);
    checkExpectedRevision({ kind, reference }, options.expectedRevision, current?.revision ?? null);
    if (current === undefined) return false;
    this.#records.delete(k);
    return true;
  }

  /** Nothing to release; here so that `await using` works for every store. */
  async close(): Promise<void> {}

  /** `await using` closes the store at the end of the scope. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}

function key(kind: ResourceKind, reference: string): string {
  return `${kind}\0${reference}`;
}
